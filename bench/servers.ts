/**
 * The two servers the host-overhead benchmark compares, each started in its own process:
 *
 *   node dist/bench/servers.js bare    a bare Express 5 app, one route answering a small JSON object
 *   node dist/bench/servers.js store   the real host (SQLite) with one extra store route behind
 *                                      application-password auth, policy, ajv validation and envelope
 *
 * When ready, the process prints one JSON line on stdout: `{"port": n, "path": "...", "authorization": "..."}`
 * (`authorization` is the `Basic` header value for the store server, null for the bare one). It listens on
 * 127.0.0.1 only, on a free port, and exits on SIGTERM/SIGINT or when its stdin closes (the store server
 * deletes its temporary data dir). Started with an IPC channel, it answers the message `'cpu-usage'` with
 * `{cpuUsage: process.cpuUsage()}`.
 */
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import express from 'express';
import { RateLimits } from '../src/core/ratelimit';
import { StoreSettingsPolicy } from '../src/core/policies';
import { mountRoutes, route } from '../src/core/routes';
import { boot } from '../src/host/bootstrap';
import { readConfig } from '../src/host/config';

export type ServerKind = 'bare' | 'store';

export interface ServerReady {
  port: number;
  /** Path (with query) both servers answer with `{ ok: true, q }`. */
  path: string;
  /** `Authorization` header value the store server needs; null for the bare server. */
  authorization: string | null;
}

export const BENCH_NAMESPACE = 'bench/v1';
export const BENCH_PATH = `/wp-json/${BENCH_NAMESPACE}/ping?q=hello`;

function portOf(server: http.Server): number {
  return (server.address() as AddressInfo).port;
}

async function startBare(): Promise<{ ready: ServerReady; close(): Promise<void> }> {
  const app = express();
  app.disable('x-powered-by');
  app.get(`/wp-json/${BENCH_NAMESPACE}/ping`, (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q : undefined;
    res.json({ ok: true, q });
  });
  const server = await new Promise<http.Server>((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(s)));
  });
  return {
    ready: { port: portOf(server), path: BENCH_PATH, authorization: null },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function startStore(): Promise<{ ready: ServerReady; close(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-bench-'));
  // An explicit environment: SQLite under the temp dir, never a DATABASE_URL inherited from the shell.
  const config = readConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
  const runtime = await boot(config);
  const { host } = runtime;

  const user = await host.users.create({ login: 'bench-admin', email: 'bench-admin@example.com', roles: ['administrator'] });
  const { password } = await host.users.appPasswords.create(user.id, 'bench');

  mountRoutes(
    host,
    BENCH_NAMESPACE,
    [
      route({
        method: 'GET',
        path: '/ping',
        policy: StoreSettingsPolicy,
        permission: 'store/settings',
        schema: { query: Type.Object({ q: Type.Optional(Type.String({ maxLength: 50 })) }) },
        envelope: 'message',
        handler: async (_ctx, { query }) => ({ ok: true, q: query.q }),
      }),
    ],
    { limits: new RateLimits(host.db) },
  );

  const server = await runtime.listen();
  const authorization = `Basic ${Buffer.from(`${user.login}:${password}`).toString('base64')}`;
  return {
    ready: { port: portOf(server), path: BENCH_PATH, authorization },
    async close() {
      await runtime.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function startServer(kind: ServerKind): Promise<{ ready: ServerReady; close(): Promise<void> }> {
  if (kind === 'bare') return startBare();
  if (kind === 'store') return startStore();
  throw new Error(`unknown server kind "${kind as string}" (expected bare or store)`);
}

async function main(): Promise<void> {
  const kind = process.argv[2] as ServerKind;
  const server = await startServer(kind);
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // The parent closes our stdin when it goes away; do not outlive it.
  process.stdin.on('end', stop).resume();
  // With an IPC channel, the parent may ask for this process's CPU time (to report CPU per request).
  process.on('message', (message: unknown) => {
    if (message === 'cpu-usage') process.send?.({ cpuUsage: process.cpuUsage() });
  });
  process.stdout.write(`${JSON.stringify(server.ready)}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
