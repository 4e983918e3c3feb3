import pino from 'pino';
import type { Logger } from './contract';

export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, redact: ['req.headers.authorization', 'req.headers.cookie', 'password'] });
}
