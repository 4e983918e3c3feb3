import crypto from 'node:crypto';
import knex, { type Knex } from 'knex';
import { openDatabase } from '../../src/host/database';

export interface TestDatabase {
  db: Knex;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test file: SQLite in memory, or a new MariaDB database when TEST_DATABASE_URL is set. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) {
    const db = await openDatabase('sqlite::memory:');
    return { db, url: 'sqlite::memory:', drop: () => db.destroy() };
  }
  const url = new URL(base);
  const name = `t_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
  const admin = knex({
    client: 'mysql2',
    connection: { host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
  });
  await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  url.pathname = `/${name}`;
  const db = await openDatabase(url.toString());
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.destroy();
      await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.destroy();
    },
  };
}
