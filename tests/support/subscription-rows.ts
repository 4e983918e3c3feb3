import crypto from 'node:crypto';
import type { Knex } from 'knex';

/** A subscription row written straight into the table, for tests of the routes that read subscriptions. */
export async function insertSubscription(db: Knex, over: Record<string, unknown> = {}): Promise<number> {
  const at = (over.created_at as string | undefined) ?? '2026-11-21 10:00:00';
  const [id] = await db('store_subscriptions').insert({
    uuid: crypto.randomUUID(),
    item_name: 'Plan',
    status: 'active',
    collection_method: 'automatic',
    current_payment_method: 'stripe',
    billing_interval: 'monthly',
    currency: 'USD',
    recurring_amount: 1000,
    config: '{}',
    created_at: at,
    updated_at: at,
    ...over,
  });
  return Number(id);
}
