import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/host/cli';
import { readConfig } from '../../src/host/config';
import { openDatabase } from '../../src/host/database';
import { createTestDatabase, type TestDatabase } from '../support/database';

describe('npm run cli -- <command>', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-cli-'));
  // The CLI opens its own connection: a SQLite file under DATA_DIR, or a fresh MariaDB database in a database run.
  const config = { ...readConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), logLevel: 'silent', secret: 'cli-secret' };
  let database: TestDatabase | null = null;
  beforeAll(async () => {
    if (!process.env.TEST_DATABASE_URL) return;
    database = await createTestDatabase();
    config.databaseUrl = database.url;
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('migrate: creates the host and store tables', async () => {
    const result = await runCli(['migrate'], config);
    expect(result).toEqual({ code: 0, output: ['Migrations are up to date.'] });
    const db = await openDatabase(config.databaseUrl);
    try {
      for (const table of ['users', 'usermeta', 'options', 'sessions', 'jobs', 'app_passwords', 'store_rate_limits']) {
        expect(await db.schema.hasTable(table)).toBe(true);
      }
    } finally {
      await db.destroy();
    }
  });

  it('user create: creates the user with the role (customer by default)', async () => {
    const made = await runCli(['user', 'create', '--login', 'ann', '--email', 'Ann@Example.com', '--password', 'pw-123456', '--role', 'order_manager'], config);
    expect(made.code).toBe(0);
    expect(made.output[0]).toMatch(/Created user ann \(id \d+\) with role order_manager/);
    const plain = await runCli(['user', 'create', '--login', 'bob', '--email', 'bob@example.com', '--password', 'pw-123456'], config);
    expect(plain.output[0]).toMatch(/with role customer/);
  });

  it('user create: a taken login fails with a readable error', async () => {
    await expect(runCli(['user', 'create', '--login', 'ann', '--email', 'other@example.com', '--password', 'x'], config)).rejects.toThrow(
      'Sorry, that username already exists!',
    );
  });

  it('user create: missing flags are named, with the usage, exit code 2', async () => {
    const result = await runCli(['user', 'create', '--login', 'carl'], config);
    expect(result.code).toBe(2);
    expect(result.output).toEqual(['missing --email, --password', 'usage: npm run cli -- user create --login L --email E --password P [--role R]']);
  });

  it('an unknown flag: exit code 2 and the usage', async () => {
    const result = await runCli(['role', 'assign', '--login', 'bob', '--role', 'x', '--force'], config);
    expect(result.code).toBe(2);
    expect(result.output[1]).toBe('usage: npm run cli -- role assign --login L --role R');
  });

  it('app-password create: prints the new password alone on its last line', async () => {
    const result = await runCli(['app-password', 'create', '--login', 'ann', '--name', 'laptop'], config);
    expect(result.code).toBe(0);
    expect(result.output[result.output.length - 1]).toMatch(/^(\w{4} ){5}\w{4}$/);
  });

  it('role assign: adds the role', async () => {
    const result = await runCli(['role', 'assign', '--login', 'bob', '--role', 'shop_manager'], config);
    expect(result).toEqual({ code: 0, output: ['Assigned role shop_manager to bob.'] });
    await expect(runCli(['role', 'assign', '--login', 'bob', '--role', 'pirate'], config)).rejects.toThrow('Unknown role "pirate".');
  });

  it('user create: the operator vouches for the email (verified); user verify-email marks another user verified', async () => {
    const db = await openDatabase(config.databaseUrl);
    try {
      const created = await db('users').where({ login: 'ann' }).first('email_verified_at');
      expect(created.email_verified_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      await db('users').where({ login: 'bob' }).update({ email_verified_at: null });
      const result = await runCli(['user', 'verify-email', '--login', 'bob'], config);
      expect(result).toEqual({ code: 0, output: ['The email address bob@example.com of bob is verified.'] });
      expect((await db('users').where({ login: 'bob' }).first('email_verified_at')).email_verified_at).not.toBeNull();
      await expect(runCli(['user', 'verify-email', '--login', 'nobody'], config)).rejects.toThrow('no user with login "nobody"');
    } finally {
      await db.destroy();
    }
  });

  it('an unknown command: exit code 2 and the usage', async () => {
    const result = await runCli(['fly'], config);
    expect(result.code).toBe(2);
    expect(result.output.join('\n')).toContain('usage: npm run cli -- <command>');
  });

  it.each(['constructor', 'toString', '__proto__'])('an inherited name (%s) is an unknown command too', async (name) => {
    const result = await runCli([name], config);
    expect(result).toMatchObject({ code: 2, output: expect.arrayContaining([`unknown command "${name}"`]) });
  });

  it('user create loads neither the REST API, the HTTP server nor the mailer (the CLI starts at once)', async () => {
    const forbidden = ['express', 'express-session', 'ajv', 'nodemailer', '../../src/plugin', '../../src/core/routes', '../../src/host/app'];
    try {
      await jest.isolateModulesAsync(async () => {
        for (const name of forbidden) {
          jest.doMock(name, () => {
            throw new Error(`a CLI command loaded ${name}`);
          });
        }
        const { runCli: isolatedCli } = require('../../src/host/cli') as typeof import('../../src/host/cli');
        const result = await isolatedCli(
          ['user', 'create', '--login', 'dana', '--email', 'dana@example.com', '--password', 'pw-123456', '--role', 'shop_manager'],
          config,
        );
        expect(result.output[0]).toMatch(/^Created user dana \(id \d+\) with role shop_manager\.$/);
        expect(result.code).toBe(0);
      });
    } finally {
      for (const name of forbidden) jest.dontMock(name);
    }
    const db = await openDatabase(config.databaseUrl);
    try {
      expect(await db('users').where({ login: 'dana' }).first('email')).toEqual({ email: 'dana@example.com' });
    } finally {
      await db.destroy();
    }
  });

  it('is the `store` bin of the package: package.json points at the compiled module, which keeps the node shebang', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { bin?: Record<string, string> };
    expect(pkg.bin).toEqual({ store: 'dist/src/host/cli.js' });
    expect(fs.readFileSync(path.join(__dirname, '../../src/host/cli.ts'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });
});
