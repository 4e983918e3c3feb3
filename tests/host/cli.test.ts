import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/host/cli';
import { readConfig } from '../../src/host/config';
import { openDatabase } from '../../src/host/database';

describe('npm run cli -- <command>', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-cli-'));
  const config = { ...readConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), logLevel: 'silent', secret: 'cli-secret' };
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

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

  it('an unknown command: exit code 2 and the usage', async () => {
    const result = await runCli(['fly'], config);
    expect(result.code).toBe(2);
    expect(result.output.join('\n')).toContain('usage: npm run cli -- <command>');
  });
});
