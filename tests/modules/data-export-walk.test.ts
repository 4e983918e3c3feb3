import { startTestApp, type TestApp, type TestUser } from '../support/app';
import { batch, insertCustomer, insertOrders, walk } from './data-export-fixtures';

describe('POST /data-export/orders/batch: walking an export', () => {
  let app: TestApp;
  let admin: TestUser;
  let customer: number;
  let existing: number[];

  const db = () => app.host.db;
  const setBudgets = (budgets: { export_time_budget_ms?: number; export_size_budget_bytes?: number }) => app.host.options.set('data_export_budgets', budgets);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    customer = await insertCustomer(db(), 'walker@example.com', 'Wally', 'Walker');
    existing = await insertOrders(db(), customer, 450);
  });
  afterAll(() => app.close());
  afterEach(() => app.host.options.delete('data_export_budgets'));

  describe('the keyset cursor', () => {
    it('passes the last record_id back as the cursor; total only on the first call; cursor null at the end', async () => {
      const { ids, batches } = await walk(app, admin, { columns: ['id'], max_records: 200 });
      expect(ids).toEqual(existing);
      expect(batches.map((b) => [b.records.length, b.total, b.has_more, b.cursor])).toEqual([
        [200, 450, true, existing[199]],
        [200, null, true, existing[399]],
        [50, null, false, null],
      ]);
    });

    it('reads the rows with a keyset condition on id, never OFFSET', async () => {
      const statements: string[] = [];
      const listen = (q: { sql: string }) => statements.push(q.sql.toLowerCase());
      db().on('query', listen);
      try {
        await batch(app, admin, { columns: ['id', 'customer_email'], cursor: existing[99], max_records: 100 });
      } finally {
        db().off('query', listen);
      }
      const reads = statements.filter((s) => s.includes('from `store_orders` as `o`') || s.includes('from "store_orders" as "o"'));
      expect(reads).toHaveLength(1);
      expect(reads[0]).toMatch(/[`"]o[`"]\.[`"]id[`"] > \?/);
      expect(reads[0]).not.toMatch(/offset/);
    });

    it('walks backwards with sort_type desc', async () => {
      const { ids } = await walk(app, admin, { scope: 'search_results', filters: { sort_type: 'desc' }, columns: ['id'], max_records: 100 });
      expect(ids).toEqual([...existing].reverse());
    });

    it('returns every order that existed at the start exactly once while orders are inserted between and during batches', async () => {
      const before = (await db()('store_orders').select('id')).map((r: { id: number }) => Number(r.id)).sort((a, b) => a - b);
      const added: number[] = [];
      const racing: Array<Promise<unknown>> = [];
      const { ids } = await walk(app, admin, { columns: ['id', 'invoice_no'], max_records: 100 }, async () => {
        // one write between batches, and three racing the next batch request
        added.push(...(await insertOrders(db(), customer, 2)));
        racing.push(...[1, 2, 3].map(() => insertOrders(db(), customer, 1).then((n) => added.push(...n))));
      });
      await Promise.all(racing);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.filter((id) => before.includes(id))).toEqual(before);
      expect(ids.every((id) => before.includes(id) || added.includes(id))).toBe(true);
      expect(added.length).toBeGreaterThan(0);
    });

    it('does the same walking backwards: orders inserted meanwhile never show', async () => {
      const before = (await db()('store_orders').select('id')).map((r: { id: number }) => Number(r.id)).sort((a, b) => b - a);
      const { ids } = await walk(app, admin, { scope: 'search_results', filters: { sort_type: 'desc' }, columns: ['id'], max_records: 100 }, () =>
        Promise.all([insertOrders(db(), customer, 2), batch(app, admin, { columns: ['id'] })]),
      );
      expect(ids).toEqual(before);
    });
  });

  describe('budgets', () => {
    it('stops early at the size budget: fewer records, has_more, and a next_max that fits', async () => {
      await setBudgets({ export_size_budget_bytes: 20_000 });
      const first = await batch(app, admin, { columns: ['id', 'invoice_no', 'created_at'], max_records: 1000 });
      const answer = first.body.export;
      expect(answer.has_more).toBe(true);
      expect(answer.records.length).toBeGreaterThan(50);
      expect(answer.records.length).toBeLessThan(450);
      expect(answer.batch.estimated_bytes).toBeLessThanOrEqual(20_000);
      expect(answer.batch.requested_max).toBe(1000);
      // the next batch fits the budget with a margin: fewer records than this one, which hit the budget
      const perRecord = answer.batch.estimated_bytes / answer.records.length;
      expect(answer.batch.next_max * perRecord).toBeLessThanOrEqual(0.85 * 20_000);
      expect(answer.batch.next_max).toBeGreaterThan(0.6 * answer.records.length);
      expect(answer.batch.next_max).toBeLessThan(answer.records.length);
      expect(answer.cursor).toBe(answer.records[answer.records.length - 1].record_id);
      const { ids } = await walk(app, admin, { columns: ['id', 'invoice_no', 'created_at'], max_records: 1000 });
      expect(ids.slice(0, existing.length)).toEqual(existing);
    });

    it('stops early at the time budget, with at least one record per batch', async () => {
      await setBudgets({ export_time_budget_ms: 0 });
      const { ids, batches } = await walk(app, admin, { scope: 'selected', ids: existing.slice(0, 5), columns: ['id'], max_records: 1000 });
      expect(ids).toEqual(existing.slice(0, 5));
      expect(batches.map((b) => b.records.length)).toEqual([1, 1, 1, 1, 1]);
      expect(batches.map((b) => b.has_more)).toEqual([true, true, true, true, false]);
      expect(batches[0].batch.next_max).toBe(100);
    });

    it('answers 413 when one record alone is larger than the size budget', async () => {
      await setBudgets({ export_size_budget_bytes: 600 });
      const res = await batch(app, admin, { format: 'json', modules: ['items', 'customer'], scope: 'selected', ids: [existing[0]] });
      expect(res.status).toBe(413);
      expect(res.body.message).toMatch(/max_records|columns|modules/);
    });

    it('suggests the most records that fit when the budgets are far away (small records, no time limit): 1000', async () => {
      await setBudgets({ export_time_budget_ms: 1e9 });
      const res = await batch(app, admin, { columns: ['id'], max_records: 100 });
      expect(res.body.export.batch).toMatchObject({ records: 100, requested_max: 100, next_max: 1000 });
    });
  });
});
