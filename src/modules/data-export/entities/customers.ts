import type { Knex } from 'knex';
import { formatMoney } from '../../../core/money';
import { CustomerPolicy } from '../../../core/policies';
import { customerListFilter } from '../../customers/list-filters';
import { presentCustomer, type CustomerRow } from '../../customers/presenter';
import { addressesOf } from '../../customers/service';
import { CUSTOMER_STATUSES } from '../../customers/types';
import { labelsFor } from '../../labels/service';
import { exportEntity, type ExportFormatting } from '../types';
import { listFilterValues } from './list-filter-values';
import { column, date, integer, money, selectColumns, text, type SqlColumn, type SqlRow } from './sql-columns';

type Join = 'billing';

/** The primary billing address: at most one per customer (the unique `(customer_id, primary_slot)` key). */
const JOINS: Record<Join, (q: Knex.QueryBuilder) => void> = {
  billing: (q) => q.leftJoin('store_customer_addresses as ba', (on) => on.on('ba.customer_id', '=', 'c.id').andOnVal('ba.primary_slot', '=', 'billing')),
};

/** The CSV columns of a customer (README "Data export" documents each). */
const COLUMNS: SqlColumn<Join>[] = [
  column('id', 'Customer ID', 'c.id', integer, { selected: true }),
  column('first_name', 'First name', 'c.first_name', text, { selected: true }),
  column('last_name', 'Last name', 'c.last_name', text, { selected: true }),
  {
    key: 'full_name',
    label: 'Full name',
    default_selected: false,
    select: ['c.first_name as first_name', 'c.last_name as last_name'],
    read: (row) => [text(row.first_name), text(row.last_name)].filter(Boolean).join(' '),
  },
  column('email', 'Email', 'c.email', text, { selected: true }),
  column('status', 'Status', 'c.status', text, { selected: true }),
  column('billing_country', 'Billing country', 'ba.country', text, { joins: ['billing'] }),
  column('billing_city', 'Billing city', 'ba.city', text, { joins: ['billing'] }),
  column('purchase_count', 'Purchases', 'c.purchase_count', integer, { selected: true }),
  ...money<Join>('ltv', 'Lifetime value', 'c.ltv', null, true),
  ...money<Join>('aov', 'Average order value', 'c.aov', null),
  ...date<Join>('first_purchase_date', 'First purchase', 'c.first_purchase_date'),
  ...date<Join>('last_purchase_date', 'Last purchase', 'c.last_purchase_date'),
  ...date<Join>('created_at', 'Created', 'c.created_at', true),
];

const COLUMN_BY_KEY = new Map(COLUMNS.map((c) => [c.key, c]));

const MODULES = [
  { key: 'addresses', label: 'Billing and shipping addresses' },
  { key: 'stats', label: 'Purchase statistics' },
  { key: 'labels', label: 'Labels' },
] as const;

type ModuleKey = (typeof MODULES)[number]['key'];

/** Orders and subscriptions per customer of the batch, one grouped query each. */
async function activityCounts(db: Knex, ids: number[]) {
  type Count = { customer_id: number | string; status?: string; n: number | string };
  const [orders, subscriptions] = (await Promise.all([
    db('store_orders').whereIn('customer_id', ids).groupBy('customer_id').select('customer_id').count({ n: '*' }),
    db('store_subscriptions').whereIn('customer_id', ids).groupBy('customer_id', 'status').select('customer_id', 'status').count({ n: '*' }),
  ])) as [Count[], Count[]];
  const orderCount = new Map(orders.map((r) => [Number(r.customer_id), Number(r.n)]));
  const byStatus = new Map<number, Record<string, number>>();
  for (const r of subscriptions) {
    const counts = byStatus.get(Number(r.customer_id)) ?? {};
    counts[String(r.status)] = Number(r.n);
    byStatus.set(Number(r.customer_id), counts);
  }
  return { orderCount, byStatus };
}

/** A customer's purchase statistics (stored, kept current by the order writers) with their orders and subscriptions. */
function stats(row: SqlRow, counts: Awaited<ReturnType<typeof activityCounts>>, format: ExportFormatting) {
  const customer = presentCustomer(row as unknown as CustomerRow);
  const store = (amount: number) => formatMoney(amount, format.money.currency, format.money);
  const subscriptions = counts.byStatus.get(customer.id) ?? {};
  return {
    purchase_count: customer.purchase_count,
    order_count: counts.orderCount.get(customer.id) ?? 0,
    ltv: customer.ltv,
    ltv_formatted: store(customer.ltv),
    aov: customer.aov,
    aov_formatted: store(customer.aov),
    purchase_value: customer.purchase_value,
    first_purchase_date: customer.first_purchase_date,
    last_purchase_date: customer.last_purchase_date,
    subscriptions: { total: Object.values(subscriptions).reduce((a, b) => a + b, 0), by_status: subscriptions },
  };
}

/** Customers: the admin customer list's rows (`GET /customers`), its filters, addresses, statistics and labels. */
export const customersExport = exportEntity<SqlRow>({
  entity: 'customers',
  permission: 'customers/export',
  policy: CustomerPolicy,
  table: 'store_customers as c',
  idColumn: 'c.id',
  columns: COLUMNS,
  modules: MODULES,
  record: { key: 'customer', present: (row) => ({ ...presentCustomer(row as unknown as CustomerRow) }) },

  applyFilters(ctx, query, filters) {
    const { zone, ...input } = listFilterValues(filters, CUSTOMER_STATUSES);
    customerListFilter(ctx.db, input, { zone, now: ctx.clock.now() }).apply(query);
  },

  selectRows(_ctx, query, columns) {
    if (!columns) query.select('c.*');
    else
      selectColumns(
        query,
        'c.id',
        columns.map((c) => COLUMN_BY_KEY.get(c.key)!),
        JOINS,
      );
  },

  async loadModules(ctx, rows, modules, format) {
    const ids = rows.map((r) => Number(r.id));
    const has = (m: ModuleKey) => modules.includes(m);
    const [billing, shipping, labels, counts] = await Promise.all([
      has('addresses') ? addressesOf(ctx.db, ids, 'billing') : null,
      has('addresses') ? addressesOf(ctx.db, ids, 'shipping') : null,
      has('labels') ? labelsFor(ctx.db, 'customer', ids) : null,
      has('stats') ? activityCounts(ctx.db, ids) : null,
    ]);
    return (row) => {
      const id = Number(row.id);
      const out: Record<string, unknown> = {};
      for (const m of modules as ModuleKey[]) {
        if (m === 'addresses') out.addresses = { billing: billing?.get(id) ?? [], shipping: shipping?.get(id) ?? [] };
        else if (m === 'stats') out.stats = stats(row, counts!, format);
        else out.labels = labels?.get(id) ?? [];
      }
      return out;
    };
  },
});
