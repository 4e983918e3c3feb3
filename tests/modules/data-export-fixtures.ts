import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { BASE, type TestApp, type TestUser } from '../support/app';
import { insertOrder } from '../support/orders';

export const NOW = '2026-11-21 10:00:00';

export interface ExportAnswer {
  status: number;
  body: {
    message?: string;
    errors?: Record<string, Record<string, string>>;
    export: {
      entity: string;
      schema_version: number;
      records: Array<Record<string, unknown> & { record_id: number }>;
      total: number | null;
      cursor: number | null;
      has_more: boolean;
      batch: { records: number; elapsed_ms: number; estimated_bytes: number; requested_max: number; next_max: number };
    };
  };
}

export async function insertCustomer(db: Knex, email: string, first_name: string, last_name: string): Promise<number> {
  const [id] = await db('store_customers').insert({
    email,
    first_name,
    last_name,
    uuid: crypto.randomUUID(),
    status: 'active',
    purchase_value: '{}',
    created_at: NOW,
    updated_at: NOW,
  });
  return Number(id);
}

/** `n` plain orders of one customer, created a minute apart; their ids in order. */
export async function insertOrders(db: Knex, customerId: number, n: number, over: Record<string, unknown> = {}): Promise<number[]> {
  const rows = Array.from({ length: n }, (_, i) => {
    const at = new Date(Date.parse('2026-01-01T00:00:00Z') + i * 60_000).toISOString().slice(0, 19).replace('T', ' ');
    return {
      uuid: crypto.randomUUID(),
      customer_id: customerId,
      invoice_no: `BULK-${crypto.randomInt(1e9)}`,
      status: 'completed',
      payment_status: 'paid',
      currency: 'USD',
      total_amount: 1000 + i,
      total_paid: 1000 + i,
      created_at: at,
      updated_at: at,
      ...over,
    };
  });
  for (let i = 0; i < rows.length; i += 200) await db('store_orders').insert(rows.slice(i, i + 200));
  const inserted = (await db('store_orders')
    .whereIn(
      'uuid',
      rows.map((r) => r.uuid),
    )
    .select('id')) as Array<{ id: number }>;
  return inserted.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** Six orders of three customers with items, addresses, transactions and coupons (a percentage and a fixed one). */
export async function seedOrders(db: Knex) {
  const ann = await insertCustomer(db, 'ann@example.com', 'Ann', 'Archer');
  const bob = await insertCustomer(db, 'bob@example.com', 'Bob', 'Baker');
  const cat = await insertCustomer(db, 'cat@example.com', 'Cat', "O'Hara");
  const item = (post_title: string, title: string, quantity = 1) => ({ post_title, title, quantity });
  const o1 = await insertOrder(
    db,
    ann,
    '2026-01-10 23:30:00',
    { invoice_no: 'INV-100', receipt_number: 100, subtotal: 5500, coupon_discount_total: 500, total_amount: 123456, total_paid: 123456 },
    [item('Cotton Shirt', 'Navy / M', 2), item('Socks', 'Black', 3)],
  );
  const o2 = await insertOrder(
    db,
    ann,
    '2026-02-10 10:00:00',
    { invoice_no: 'INV-101', status: 'on-hold', payment_status: 'pending', total_amount: 700, total_paid: 0 },
    [item('Coffee Mug', 'Large')],
  );
  const o3 = await insertOrder(db, bob, '2026-03-10 02:00:00', { invoice_no: 'INV-102', status: 'processing', type: 'subscription', total_amount: 1200 }, [
    item('Pro Plan', 'Monthly'),
  ]);
  const o4 = await insertOrder(db, bob, '2026-04-10 10:00:00', { invoice_no: 'INV-103', payment_status: 'refunded', total_amount: 3000, total_refund: 3000 });
  const o5 = await insertOrder(db, cat, '2026-05-10 10:00:00', { invoice_no: 'INV-104', currency: 'EUR', total_amount: 99900, payment_method: 'stripe' });
  const o6 = await insertOrder(db, cat, '2026-06-10 10:00:00', { invoice_no: '=HYPERLINK("x")', status: 'canceled', payment_status: 'failed', mode: 'test' });
  await db('store_order_addresses').insert([
    { order_id: o1, type: 'billing', name: 'Ann Archer', city: 'San Francisco', country: 'US', created_at: NOW, updated_at: NOW },
    { order_id: o1, type: 'shipping', name: 'Ann Archer', city: 'Austin', country: 'US', created_at: NOW, updated_at: NOW },
    { order_id: o5, type: 'billing', name: "Cat O'Hara", city: 'Berlin, Mitte', country: 'DE', created_at: NOW, updated_at: NOW },
  ]);
  await db('store_applied_coupons').insert([
    { order_id: o1, code: 'SPRING', type: 'percentage', amount: 1250, discounted_amount: 400, priority: 1, created_at: NOW, updated_at: NOW },
    { order_id: o1, code: 'FLAT1', type: 'fixed', amount: 100, discounted_amount: 100, priority: 2, created_at: NOW, updated_at: NOW },
  ]);
  await db('store_order_transactions').insert({
    uuid: crypto.randomUUID(),
    order_id: o1,
    status: 'succeeded',
    payment_method: 'stripe',
    total: 123456,
    created_at: NOW,
    updated_at: NOW,
  });
  return { customers: { ann, bob, cat }, orders: { o1, o2, o3, o4, o5, o6 } };
}

/** `POST /data-export/{entity}/batch` as `user`. */
export function batch(app: TestApp, user: TestUser, body: Record<string, unknown>, entity = 'orders'): Promise<ExportAnswer> {
  return app.as(user).post(`${BASE}/data-export/${entity}/batch`).send(body) as unknown as Promise<ExportAnswer>;
}

/** Every record of an export, batch by batch; `between` runs after each batch (to write concurrently). */
export async function walk(
  app: TestApp,
  user: TestUser,
  body: Record<string, unknown>,
  between: (batchNo: number) => Promise<unknown> = async () => undefined,
): Promise<{ ids: number[]; batches: ExportAnswer['body']['export'][] }> {
  const ids: number[] = [];
  const batches: ExportAnswer['body']['export'][] = [];
  let cursor: number | null = null;
  for (;;) {
    const res: ExportAnswer = await batch(app, user, { ...body, ...(cursor === null ? {} : { cursor }) });
    expect(res.status).toBe(200);
    batches.push(res.body.export);
    ids.push(...res.body.export.records.map((r) => r.record_id));
    if (!res.body.export.has_more) return { ids, batches };
    cursor = res.body.export.cursor;
    await between(batches.length);
  }
}
