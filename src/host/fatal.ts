import { ConfigError } from './config';
import { CommandError } from './contract';
import { UserError } from './users';

/** Ends the process with one readable line: operators get the cause, not a stack dump. */
export function reportFatal(error: unknown): never {
  const known = error instanceof ConfigError || error instanceof UserError || error instanceof CommandError;
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  console.error(`error: ${known ? message : `could not start (${message})`}`);
  process.exit(1);
}
