import type { Knex } from 'knex';
import { applyAdvancedFilters, parseAdvancedFilters, type FilterContext, type FilterProperty } from '../customers/filters';
import { BILLING_INTERVALS, SUBSCRIPTION_STATUSES } from './types';

/**
 * The advanced filters of `GET /subscriptions` (`filter_type=advanced`; the format is customers/filters.ts's): the
 * subscription's own properties, its transactions', its product's, and the license properties.
 */

/** The subscription (alias `s`) when its `column` is one of the ids. */
const ownColumn = (column: string) => (sub: Knex.QueryBuilder, ids: number[]) =>
  sub.select('fs.id').from('store_subscriptions as fs').whereRaw('?? = ??', ['fs.id', 's.id']).whereIn(`fs.${column}`, ids);

/**
 * Licensing is off (DESIGN §9): no subscription has a license, so every license condition is false whatever its
 * operator (`null` compares to nothing), and a group holding one matches nothing.
 */
const NO_LICENSE = () => 'null';

const SUBSCRIPTION_PROPERTIES: Record<string, FilterProperty> = {
  vendor_subscription_id: { kind: 'text', sql: () => 's.vendor_subscription_id' },
  status: { kind: 'choice', sql: () => 's.status', choices: SUBSCRIPTION_STATUSES },
  /** The tree select of products and their variations: variation ids. */
  variation: { kind: 'ids', related: ownColumn('variation_id') },
  billing_interval: { kind: 'choice', sql: () => 's.billing_interval', choices: BILLING_INTERVALS },
  current_payment_method: { kind: 'choice', sql: () => 's.current_payment_method' },
  created_at: { kind: 'date', sql: () => 's.created_at' },
  next_billing_date: { kind: 'date', sql: () => 's.next_billing_date' },
  bill_count: { kind: 'number', sql: () => 's.bill_count' },
  /** Product ids. */
  product: { kind: 'ids', related: ownColumn('product_id') },
  license_key: { kind: 'text', sql: NO_LICENSE },
  license_status: { kind: 'choice', sql: NO_LICENSE, choices: ['active', 'disabled', 'expired'] },
};

/**
 * Transaction properties: the condition holds when one of the subscription's transactions satisfies it, those of its
 * parent order or those recorded for it (`subscription_id`, renewals). The spec's transaction `current_payment_method`
 * is `transaction_payment_method` here, apart from the subscription's own.
 */
const TRANSACTION_PROPERTIES: Record<string, FilterProperty> = {
  /** The gateway's charge id. */
  transaction_id: { kind: 'text', sql: () => 'ft.vendor_charge_id' },
  transaction_payment_method: { kind: 'choice', sql: () => 'ft.payment_method' },
};

/** Every property `advanced_filters` may name on `GET /subscriptions`. */
const ALL_PROPERTIES: Record<string, FilterProperty> = { ...SUBSCRIPTION_PROPERTIES, ...TRANSACTION_PROPERTIES };

export type SubscriptionFilterGroups = ReturnType<typeof parseAdvancedFilters>;

/** Parses and checks `advanced_filters` (422 naming the field on any refusal). */
export function parseSubscriptionFilters(text: string | undefined, ctx: FilterContext): SubscriptionFilterGroups {
  return parseAdvancedFilters(text, ALL_PROPERTIES, ctx);
}

/** Ids of the subscriptions with a transaction satisfying `condition`: the parent order's, and the renewals'. */
function withTransaction(db: Knex, condition: SubscriptionFilterGroups[number][number], ctx: FilterContext): Knex.QueryBuilder {
  const parents = db('store_order_transactions as ft').join('store_subscriptions as fp', 'fp.parent_order_id', 'ft.order_id').select('fp.id');
  const recorded = db('store_order_transactions as ft').whereNotNull('ft.subscription_id').select('ft.subscription_id as id');
  applyAdvancedFilters(parents, db, [[condition]], TRANSACTION_PROPERTIES, ctx);
  applyAdvancedFilters(recorded, db, [[condition]], TRANSACTION_PROPERTIES, ctx);
  return db.queryBuilder().select('matches.id').from(parents.union(recorded).as('matches'));
}

/** Narrows a subscription query (alias `s`) to the rows matching any group (all conditions of a group holding). */
export function applySubscriptionFilters(query: Knex.QueryBuilder, db: Knex, groups: SubscriptionFilterGroups, ctx: FilterContext): void {
  if (!groups.some((g) => g.length)) return;
  query.where((outer) => {
    for (const group of groups.filter((g) => g.length)) {
      outer.orWhere((inner) => {
        for (const condition of group) {
          if (Object.hasOwn(TRANSACTION_PROPERTIES, condition.property)) inner.whereIn('s.id', withTransaction(db, condition, ctx));
          else applyAdvancedFilters(inner, db, [[condition]], SUBSCRIPTION_PROPERTIES, ctx);
        }
      });
    }
  });
}
