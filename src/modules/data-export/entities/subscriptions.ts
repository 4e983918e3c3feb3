import type { Knex } from 'knex';
import { OrderPolicy } from '../../../core/policies';
import { SUBSCRIPTION_LIST_VIEWS, type SubscriptionRelation } from '../../subscriptions/admin-read-schemas';
import { loadSubscriptionRelations, type SubscriptionRelations } from '../../subscriptions/detail';
import { subscriptionListFilter } from '../../subscriptions/list-filters';
import { presentSubscription } from '../../subscriptions/presenter';
import { exportEntity } from '../types';
import { listFilterValues } from './list-filter-values';
import { column, date, integer, money, selectColumns, text, type SqlColumn, type SqlRow, customerNameColumn } from './sql-columns';

type Join = 'customer';

const JOINS: Record<Join, (q: Knex.QueryBuilder) => void> = {
  customer: (q) => q.leftJoin('store_customers as c', 'c.id', 's.customer_id'),
};

/** The CSV columns of a subscription (README "Data export" documents each). */
const COLUMNS: SqlColumn<Join>[] = [
  column('id', 'Subscription ID', 's.id', integer, { selected: true }),
  column('uuid', 'UUID', 's.uuid', text),
  column('status', 'Status', 's.status', text, { selected: true }),
  column('customer_id', 'Customer ID', 's.customer_id', integer),
  customerNameColumn<Join>(),
  column('customer_email', 'Customer email', 'c.email', text, { selected: true, joins: ['customer'] }),
  column('parent_order_id', 'Parent order ID', 's.parent_order_id', integer),
  column('item_name', 'Item (product - plan)', 's.item_name', text, { selected: true }),
  column('billing_interval', 'Billing interval', 's.billing_interval', text, { selected: true }),
  column('currency', 'Currency', 's.currency', text),
  ...money<Join>('recurring_amount', 'Recurring amount', 's.recurring_amount', 's.currency', true),
  column('bill_count', 'Bills paid', 's.bill_count', integer, { selected: true }),
  column('bill_times', 'Bills in total (0: until canceled)', 's.bill_times', integer),
  column('current_payment_method', 'Payment method', 's.current_payment_method', text),
  ...date<Join>('next_billing_date', 'Next billing date', 's.next_billing_date', true),
  ...date<Join>('trial_ends_at', 'Trial end', 's.trial_ends_at'),
  ...date<Join>('created_at', 'Started', 's.created_at', true),
  ...date<Join>('canceled_at', 'Canceled', 's.canceled_at'),
];

const COLUMN_BY_KEY = new Map(COLUMNS.map((c) => [c.key, c]));

/** JSON modules and the subscription relations (`loadSubscriptionRelations`) each reads. */
const MODULES: Record<string, { label: string; relations: SubscriptionRelation[] }> = {
  order: { label: 'Parent order with its addresses', relations: ['order'] },
  renewals: { label: 'Renewal orders with their items', relations: ['related_orders'] },
  customer: { label: 'Customer', relations: ['customer'] },
};

/** A module's value from the subscription's loaded relations. */
const MODULE_VALUE: Record<string, (relations: SubscriptionRelations, parentOrderId: number | null) => unknown> = {
  order: (r) => r.order ?? null,
  renewals: (r, parent) => (r.related_orders ?? []).filter((o) => o.id !== parent),
  customer: (r) => r.customer ?? null,
};

/** Subscriptions: the admin subscription list's rows (`GET /subscriptions`), its filters and relations. */
export const subscriptionsExport = exportEntity<SqlRow>({
  entity: 'subscriptions',
  permission: 'subscriptions/export',
  policy: OrderPolicy,
  table: 'store_subscriptions as s',
  idColumn: 's.id',
  columns: COLUMNS,
  modules: Object.entries(MODULES).map(([key, { label }]) => ({ key, label })),
  record: { key: 'subscription', present: (row) => ({ ...presentSubscription(row) }) },

  applyFilters(ctx, query, filters) {
    const { zone, ...input } = listFilterValues(filters, SUBSCRIPTION_LIST_VIEWS);
    subscriptionListFilter(ctx.db, input, { zone, now: ctx.clock.now() }).apply(query);
  },

  selectRows(_ctx, query, columns) {
    if (!columns) query.select('s.*');
    else
      selectColumns(
        query,
        's.id',
        columns.map((c) => COLUMN_BY_KEY.get(c.key)!),
        JOINS,
      );
  },

  async loadModules(ctx, rows, modules) {
    const relations = [...new Set(modules.flatMap((m) => MODULES[m].relations))];
    const related = relations.length
      ? await loadSubscriptionRelations(
          ctx,
          rows.map((r) => Number(r.id)),
          relations,
        )
      : null;
    return (row) => {
      const loaded = related?.(Number(row.id)) ?? {};
      const parent = row.parent_order_id === null || row.parent_order_id === undefined ? null : Number(row.parent_order_id);
      return Object.fromEntries(modules.map((m) => [m, MODULE_VALUE[m](loaded, parent)]));
    };
  },
});
