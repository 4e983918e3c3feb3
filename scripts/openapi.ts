/**
 * Writes `openapi.json` at the repository root: the document `GET /wp-json/store/v2/openapi.json` serves, taken from
 * the real app (booted on an in-memory SQLite database), so it holds every route the plugin mounts.
 *
 *   npm run openapi                           writes openapi.json
 *   node dist/scripts/openapi.js --check      exits 1 when openapi.json is stale (writes nothing)
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { boot } from '../src/host/bootstrap';
import { readConfig } from '../src/host/config';
import { findPackageRoot } from '../src/host/paths';

export const OPENAPI_FILE = 'openapi.json';

/** The committed form: two-space JSON and a final newline (the document's key order is already deterministic). */
export function renderOpenApi(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Boots the store, fetches its document over HTTP and renders it. */
export async function generateOpenApi(): Promise<string> {
  const runtime = await boot(
    readConfig({
      PORT: '0',
      DATA_DIR: path.join(os.tmpdir(), `store-openapi-${process.pid}`),
      DATABASE_URL: 'sqlite::memory:',
      STORE_SECRET: 'openapi',
      LOG_LEVEL: 'silent',
    }),
  );
  try {
    const server = await runtime.listen();
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/wp-json/${runtime.host.manifest.namespace}/openapi.json`);
    if (!response.ok) throw new Error(`GET openapi.json answered ${response.status}: ${await response.text()}`);
    return renderOpenApi(await response.json());
  } finally {
    await runtime.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const target = path.join(findPackageRoot(), OPENAPI_FILE);
  const document = await generateOpenApi();
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
  if (current === document) {
    console.log(`${OPENAPI_FILE} is up to date`);
    return;
  }
  if (argv.includes('--check')) {
    console.error(`${OPENAPI_FILE} is out of date; run npm run openapi`);
    process.exitCode = 1;
    return;
  }
  fs.writeFileSync(target, document);
  console.log(`wrote ${OPENAPI_FILE}`);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
