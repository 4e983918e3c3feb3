/**
 * `npm run cli -- reports rebuild` and `reports verify`: the rebuild prints its progress on stderr and the counts,
 * verify answers 0 when the stored reports match the orders and fails (exit 1, the differences on stderr) when not.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../../src/host/cli';
import { readConfig } from '../../src/host/config';
import { CommandError } from '../../src/host/contract';
import { openDatabase } from '../../src/host/database';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { insertOrder } from '../support/orders';

const NOW = '2026-11-21 10:00:00';

describe('reports rebuild / reports verify (CLI)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-reports-cli-'));
  let database: TestDatabase | null = null;
  let config: ReturnType<typeof readConfig>;
  let stderr: string[] = [];

  beforeAll(async () => {
    // MariaDB when the tests run on it (a database of its own), else a SQLite file every CLI run opens again.
    if (process.env.TEST_DATABASE_URL) database = await createTestDatabase();
    const base = readConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
    config = { ...base, logLevel: 'silent', secret: 'cli-secret', databaseUrl: database?.url ?? base.databaseUrl };
  }, 120_000);
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    stderr = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });
  });
  afterEach(() => jest.restoreAllMocks());

  /** Orders written straight into the tables, as a bulk import would: no sync ran for them. */
  async function importOrders(): Promise<void> {
    const db = await openDatabase(config.databaseUrl);
    try {
      const [customer] = await db('store_customers').insert({
        email: 'cli@example.com',
        first_name: 'Cli',
        uuid: 'cli-customer',
        purchase_value: '{}',
        notes: '',
        created_at: NOW,
        updated_at: NOW,
      });
      const customerId = Number(customer);
      const item = { post_id: 7, variation_id: 70, quantity: 2, line_total: 2000 };
      await insertOrder(db, customerId, NOW, { total_paid: 2000, total_amount: 2000 }, [item]);
      await insertOrder(
        db,
        customerId,
        '2026-11-22 08:30:00',
        { total_paid: 3000, total_amount: 3000, total_refund: 500, payment_status: 'partially-refunded' },
        [item],
      );
      await insertOrder(db, customerId, '2026-10-02 23:59:59', { currency: 'EUR', status: 'processing' }, [item]);
      await insertOrder(db, customerId, NOW, { payment_status: 'pending', status: 'on-hold', total_paid: 0 }, [item]);
    } finally {
      await db.destroy();
    }
  }

  it('verify passes on an empty store, fails once orders bypassed the sync, and passes again after a rebuild', async () => {
    const empty = await runCli(['reports', 'verify'], config);
    expect(empty.code).toBe(0);
    expect(empty.output).toEqual([expect.stringMatching(/^Reports verified against 0 orders \(0 counted\) in \d+\.\d s: no differences\.$/)]);

    await importOrders();
    stderr = [];
    await expect(runCli(['reports', 'verify'], config)).rejects.toThrow(CommandError);
    await expect(runCli(['reports', 'verify'], config)).rejects.toThrow(/^\d+ stored report rows differ from the orders; run "reports rebuild"\.$/);
    expect(stderr.join('')).toContain('fact 1: missing');
    expect(stderr.join('')).toContain('line 3/7/70: missing');

    stderr = [];
    const rebuilt = await runCli(['reports', 'rebuild'], config);
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.output).toEqual([expect.stringMatching(/^Reports rebuilt from 4 orders: 3 counted, in \d+\.\d s\.$/)]);
    expect(stderr.join('')).toMatch(/^0% 0\/4 orders .*\n100% 4\/4 orders /m);

    const verified = await runCli(['reports', 'verify'], config);
    expect(verified.code).toBe(0);
    expect(verified.output[0]).toMatch(/^Reports verified against 4 orders \(3 counted\) in \d+\.\d s: no differences\.$/);
  }, 120_000);

  it('verify names a summary row changed behind its back', async () => {
    const db = await openDatabase(config.databaseUrl);
    try {
      await db('store_report_sales').where({ grain: 'd' }).increment('gross', 1);
    } finally {
      await db.destroy();
    }
    await expect(runCli(['reports', 'verify'], config)).rejects.toThrow(/^3 stored report rows differ/);
    expect(stderr.join('')).toMatch(/^sales \["d","live","(USD|EUR)",\d+,.*: gross stored \d+, expected \d+$/m);
    expect((await runCli(['reports', 'rebuild'], config)).code).toBe(0);
    expect((await runCli(['reports', 'verify'], config)).code).toBe(0);
  }, 120_000);
});
