import net from 'node:net';
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
  /** Express `trust proxy` (`TRUST_PROXY`): which proxies' `X-Forwarded-For` names the client; default false. */
  trustProxy: TrustProxy;
}

/** What Express accepts for `trust proxy`: all or no proxies, a hop count, or addresses, CIDR ranges and named ranges. */
export type TrustProxy = boolean | number | string[];

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

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
    trustProxy: readTrustProxy(env.TRUST_PROXY),
  };
}

function isSubnet(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (!family || rest.length) return false;
  if (prefix === undefined) return true;
  if (/^\d{1,3}$/.test(prefix)) return Number(prefix) <= (family === 4 ? 32 : 128);
  return family === 4 && net.isIPv4(prefix);
}

/** `true`/`false`, a hop count, or comma-separated IPs, CIDR ranges and `loopback`/`linklocal`/`uniquelocal`. */
function readTrustProxy(value: string | undefined): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !NAMED_RANGES.includes(entry) && !isSubnet(entry));
  if (bad.length) {
    throw new ConfigError(
      `TRUST_PROXY must be true, false, a hop count, or comma-separated IP addresses, CIDR ranges, loopback, linklocal or uniquelocal; cannot read "${bad.join('", "')}"`,
    );
  }
  return entries;
}
