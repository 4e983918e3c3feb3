import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

interface MigrationModule {
  up(db: Knex): Promise<void>;
  down?(db: Knex): Promise<void>;
}

/** Loads the migrations of one directory (`.ts` under the test runner, `.js` when compiled), in file-name order. */
class DirectorySource implements Knex.MigrationSource<string> {
  constructor(private readonly directory: string) {}

  async getMigrations(): Promise<string[]> {
    return fs
      .readdirSync(this.directory)
      .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
      .sort();
  }

  getMigrationName(file: string): string {
    return file.replace(/\.(ts|js)$/, '');
  }

  async getMigration(file: string): Promise<Knex.Migration> {
    const loaded = require(path.join(this.directory, file)) as MigrationModule;
    return { up: loaded.up, down: loaded.down ?? (async () => undefined) };
  }
}

/** Runs one migration set; each set keeps its own bookkeeping table so host and plugin migrate independently. */
export async function migrateDirectory(db: Knex, directory: string, tableName: string): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource: new DirectorySource(directory), tableName })) as [number, string[]];
  return applied;
}

export const HOST_MIGRATIONS = path.join(__dirname, 'migrations');
