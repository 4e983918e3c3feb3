import path from 'node:path';

export interface HostConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string;
  /** SMTP transport URL; when absent mail is written as .eml files under `<dataDir>/mail`. */
  smtpUrl: string | null;
  /** Secret for nonces and credential caches; persisted in the database when not given. */
  secret: string | null;
  siteUrl: string;
  logLevel: string;
  /** HTTP worker processes (`WORKERS`, default 1); more than one runs a `node:cluster` sharing the port. */
  workers: number;
}

/** A configuration problem reported to the operator as one readable line. */
export class ConfigError extends Error {}

export function readConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): HostConfig {
  const port = env.PORT === undefined || env.PORT === '' ? 8080 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a number between 0 and 65535, got "${env.PORT}"`);
  const host = env.HOST || '127.0.0.1';
  const workers = env.WORKERS === undefined || env.WORKERS === '' ? 1 : Number(env.WORKERS);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new ConfigError(`WORKERS must be a whole number between 1 and 64, got "${env.WORKERS}"`);
  const dataDir = path.resolve(cwd, env.DATA_DIR || 'data');
  const databaseUrl = env.DATABASE_URL || `sqlite://${path.join(dataDir, 'store.sqlite')}`;
  return {
    port,
    host,
    dataDir,
    databaseUrl,
    smtpUrl: env.SMTP_URL || null,
    secret: env.STORE_SECRET || null,
    siteUrl: (env.SITE_URL || `http://${host}:${port}`).replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL || 'info',
    workers,
  };
}
