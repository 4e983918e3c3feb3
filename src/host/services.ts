import crypto from 'node:crypto';
import path from 'node:path';
import type { Knex } from 'knex';
import { AppPasswordStore } from './app-passwords';
import { systemClock } from './clock';
import type { HostConfig } from './config';
import type { CliCommand, Clock, Host, Logger, Site } from './contract';
import { openDatabase } from './database';
import { EmailVerification, registerVerificationPage } from './email-verification';
import { HookBus } from './hooks/bus';
import { JobQueue } from './jobs';
import { createLogger } from './logger';
import { HostMailer } from './mailer';
import { HOST_MIGRATIONS, migrateDirectory } from './migrate';
import { NonceService } from './nonce';
import { OptionStore } from './options';
import { PageTable } from './pages';
import { codeRoot, findPackageRoot } from './paths';
import { readManifest } from './plugin-loader';
import { registerHostRoles } from './roles';
import { RouteTable } from './router';
import { HmacSigner } from './signer';
import { UserStore } from './users';
import { createViews } from './views';

export interface HostOverrides {
  clock?: Clock;
  logger?: Logger;
  db?: Knex;
}

/** The host without HTTP: what a CLI command needs, and what the server's Express app is built on. */
export interface HostServices {
  host: Host;
  users: UserStore;
  nonces: NonceService;
  jobs: JobQueue;
  routes: RouteTable;
  pages: PageTable;
  secret: string;
  /** Runs the plugin's migrations (its own set, apart from the host's). */
  migratePlugin(): Promise<void>;
  /** Stops the job runner and closes the database (unless it was handed in). */
  close(): Promise<void>;
}

declare module './contract' {
  interface OptionMap {
    host_secret: string;
  }
}

async function loadSecret(options: OptionStore, configured: string | null): Promise<string> {
  if (configured) return configured;
  const stored = await options.get('host_secret');
  if (stored) return stored;
  const created = crypto.randomBytes(32).toString('hex');
  await options.set('host_secret', created);
  return created;
}

/** Opens and migrates the database and builds every service the plugin sees through `Host`. */
export async function createHostServices(config: HostConfig, overrides: HostOverrides = {}): Promise<HostServices> {
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const db = overrides.db ?? (await openDatabase(config.databaseUrl));
  await migrateDirectory(db, HOST_MIGRATIONS, 'host_migrations');

  const options = new OptionStore(db, clock);
  const secret = await loadSecret(options, config.secret);
  const hooks = new HookBus(logger);
  const users = new UserStore(db, hooks, clock);
  users.appPasswords = new AppPasswordStore(db, users, clock, secret);
  registerHostRoles(users.roles);
  const nonces = new NonceService(secret, clock);
  const jobs = new JobQueue(db, clock, logger);
  const routes = new RouteTable();
  const site: Site = {
    url: config.siteUrl,
    title: await options.get('site_title', 'My Store'),
    admin_email: await options.get('admin_email', 'admin@example.com'),
    timezone: await options.get('timezone', 'UTC'),
  };
  const packageRoot = findPackageRoot();
  const manifest = readManifest(packageRoot);
  const mailer = new HostMailer(site, config.smtpUrl, path.join(config.dataDir, 'mail'));
  const views = createViews(path.join(packageRoot, manifest.templates));
  const pages = new PageTable(views, logger);
  const verification = new EmailVerification(users, mailer, site, secret, clock);
  users.verificationMailer = verification;
  registerVerificationPage(pages, verification, users, views, site);

  const commands = new Map<string, CliCommand>();
  const host: Host = {
    router: routes,
    pages,
    commands: {
      register(name, command) {
        if (commands.has(name)) throw new Error(`CLI command "${name}" is registered twice`);
        commands.set(name, command);
      },
      get: (name) => commands.get(name),
      list: () => [...commands],
    },
    hooks,
    users,
    nonces,
    signer: new HmacSigner(secret),
    db,
    options,
    jobs,
    mailer,
    views,
    clock,
    logger,
    site,
    paths: { pluginRoot: packageRoot, dataDir: config.dataDir },
    manifest,
  };

  return {
    host,
    users,
    nonces,
    jobs,
    routes,
    pages,
    secret,
    async migratePlugin() {
      await migrateDirectory(db, path.join(codeRoot, manifest.migrations), 'store_migrations');
    },
    async close() {
      await jobs.stop();
      mailer.close();
      if (!overrides.db) await db.destroy();
    },
  };
}
