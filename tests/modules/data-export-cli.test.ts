import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CommandError, CommandUsageError, type CliCommand } from '../../src/host/contract';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { seedOrders } from './data-export-fixtures';

describe('npm run cli -- export orders', () => {
  let app: TestApp;
  let admin: TestUser;
  let o: Awaited<ReturnType<typeof seedOrders>>['orders'];
  let dir: string;

  const command = (): CliCommand => app.host.commands.get('export orders')!;
  const file = (name: string) => path.join(dir, name);
  const lines = (name: string) => fs.readFileSync(file(name), 'utf8').split('\r\n').filter(Boolean);

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    ({ orders: o } = await seedOrders(app.host.db));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-export-'));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await app.close();
  });
  afterEach(() => app.host.options.delete('data_export_budgets'));

  it('writes a CSV file: a header of the column labels, then one RFC 4180 line per order, formulas neutralised', async () => {
    const output = await command().run({ format: 'csv', out: file('orders.csv'), columns: 'id,invoice_no,billing_city,total_amount_formatted' });
    expect(output).toEqual([expect.stringMatching(/^6 orders written to .*orders\.csv \(csv\)/)]);
    expect(lines('orders.csv')).toEqual([
      'Order ID,Invoice number,Billing city,Total',
      `${o.o1},INV-100,San Francisco,"$1,234.56"`,
      `${o.o2},INV-101,,$7.00`,
      `${o.o3},INV-102,,$12.00`,
      `${o.o4},INV-103,,$30.00`,
      `${o.o5},INV-104,"Berlin, Mitte",€999.00`,
      `${o.o6},"'=HYPERLINK(""x"")",,$10.00`,
    ]);
  });

  it("writes the entity's default columns when --columns is omitted", async () => {
    await command().run({ out: file('default.csv') });
    const schema = (await app.as(admin).get(`${BASE}/data-export/orders/schema`)).body.export;
    const labels = schema.csv_columns.filter((c: { default_selected: boolean }) => c.default_selected).map((c: { label: string }) => c.label);
    expect(lines('default.csv')[0]).toBe(labels.join(','));
    expect(lines('default.csv')).toHaveLength(7);
  });

  it('writes JSON Lines with the modules, one record a line', async () => {
    await command().run({ format: 'json', out: file('orders.jsonl'), modules: 'items,coupons', search: 'INV-100' });
    const records = fs
      .readFileSync(file('orders.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(1);
    expect(Object.keys(records[0])).toEqual(['record_id', 'order', 'items', 'coupons']);
    expect(records[0]).toMatchObject({ record_id: o.o1, order: { invoice_no: 'INV-100' }, coupons: [{ code: 'SPRING', amount: 12.5 }, { code: 'FLAT1' }] });
  });

  it('exports what the order list shows for --search and --active-view', async () => {
    await command().run({ out: file('view.csv'), columns: 'id', 'active-view': 'paid', search: 'ann' });
    const listed = (await app.as(admin).get(`${BASE}/orders?active_view=paid&search=ann`)).body.orders.data.map((r: { id: number }) => String(r.id));
    expect(lines('view.csv').slice(1)).toEqual(listed.reverse());
    expect(listed.length).toBeGreaterThan(0);
  });

  it('stops after the batch in hand on Ctrl-C, prints the cursor, and --cursor resumes into the same file', async () => {
    await app.host.options.set('data_export_budgets', { export_time_budget_ms: 0 });
    const running = command().run({ out: file('resume.csv'), columns: 'id,status' });
    const listeners = process.listeners('SIGINT');
    (listeners[listeners.length - 1] as () => void)();
    const output = await running;
    expect(output[0]).toMatch(/^Interrupted: 1 orders written/);
    expect(output[1]).toContain(`--cursor ${o.o1}`);
    expect(process.listeners('SIGINT')).toHaveLength(listeners.length - 1);
    expect(lines('resume.csv')).toEqual(['Order ID,Order status', `${o.o1},completed`]);

    await app.host.options.delete('data_export_budgets');
    const resumed = await command().run({ out: file('resume.csv'), columns: 'id,status', cursor: String(o.o1) });
    expect(resumed).toEqual([expect.stringMatching(/^5 orders written/)]);
    const rows = (await app.host.db('store_orders').orderBy('id').select('id', 'status')) as Array<{ id: number; status: string }>;
    expect(lines('resume.csv')).toEqual(['Order ID,Order status', ...rows.map((r) => `${r.id},${r.status}`)]);
  });

  it('refuses bad flags with the usage, and a refused request with its message', async () => {
    await expect(command().run({ format: 'xml', out: file('x') })).rejects.toThrow(CommandUsageError);
    await expect(command().run({ format: 'csv' })).rejects.toThrow(CommandUsageError);
    await expect(command().run({ out: file('x'), max: 'many' })).rejects.toThrow(CommandUsageError);
    await expect(command().run({ out: file('x'), columns: 'nope' })).rejects.toThrow(CommandError);
    await expect(command().run({ out: file('x'), columns: 'id', 'active-view': 'nope' })).rejects.toThrow(/active_view/);
  });

  it('leaves an existing file as it was when the request is refused, and fails on a file it cannot write', async () => {
    fs.writeFileSync(file('kept.csv'), 'before');
    await expect(command().run({ out: file('kept.csv'), columns: 'id', 'active-view': 'nope' })).rejects.toThrow(CommandError);
    expect(fs.readFileSync(file('kept.csv'), 'utf8')).toBe('before');
    await expect(command().run({ out: path.join(dir, 'missing', 'orders.csv'), columns: 'id' })).rejects.toThrow(/ENOENT/);
  });
});
