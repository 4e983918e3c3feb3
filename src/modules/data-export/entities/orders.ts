import type { Knex } from 'knex';
import { formatMoney } from '../../../core/money';
import { OrderPolicy } from '../../../core/policies';
import { presentOrder, type OrderRow } from '../../order-records/presenter';
import { loadRelations, type OrderRelations } from '../../orders/detail';
import { orderListFilter } from '../../orders/list-filters';
import { ORDER_LIST_VIEWS, type OrderRelation } from '../../orders/read-schemas';
import { exportEntity, type ExportColumn, type ExportFormatting } from '../types';
import { listFilterValues } from './list-filter-values';
import { column, date, integer, money, selectColumns, text, type SqlColumn, type SqlRow, customerNameColumn } from './sql-columns';

/** An applied coupon as the `coupon_codes` and `coupon_values` cells read it. */
interface CouponCell {
  code: string;
  type: string;
  amount: number;
}

type OrderExportRow = SqlRow & { coupons?: CouponCell[] };

type Join = 'customer' | 'billing' | 'shipping';

/** A column read from SQL, or from what `completeRows` adds to the batch's rows. */
interface OrderColumn extends SqlColumn<Join> {
  /** A raw SQL expression selected as the column's key (a correlated subquery). */
  expression?: string;
  /** Filled by `completeRows` (one query for the whole batch). */
  coupons?: true;
}

const JOINS: Record<Join, (q: Knex.QueryBuilder) => void> = {
  customer: (q) => q.leftJoin('store_customers as c', 'c.id', 'o.customer_id'),
  billing: (q) => q.leftJoin('store_order_addresses as ba', (on) => on.on('ba.order_id', '=', 'o.id').andOnVal('ba.type', '=', 'billing')),
  shipping: (q) => q.leftJoin('store_order_addresses as sa', (on) => on.on('sa.order_id', '=', 'o.id').andOnVal('sa.type', '=', 'shipping')),
};

/** A coupon's value as people read it: a percentage stored in basis points as `12.5%`, a fixed amount in the order's money. */
function couponValue(coupon: CouponCell, currency: string, format: ExportFormatting): string {
  if (coupon.type === 'percentage') return `${coupon.amount / 100}%`;
  if (coupon.type === 'fixed') return formatMoney(coupon.amount, currency, format.money);
  return coupon.type;
}

const couponsOf = (row: SqlRow): CouponCell[] => (row as OrderExportRow).coupons ?? [];

/** The order's own columns, its customer's and its addresses'. */
const ROW_COLUMNS: SqlColumn<Join>[] = [
  column('id', 'Order ID', 'o.id', integer, { selected: true }),
  column('invoice_no', 'Invoice number', 'o.invoice_no', text, { selected: true }),
  column('receipt_number', 'Receipt number', 'o.receipt_number', integer),
  column('parent_id', 'Parent order ID', 'o.parent_id', integer),
  column('status', 'Order status', 'o.status', text, { selected: true }),
  column('payment_status', 'Payment status', 'o.payment_status', text, { selected: true }),
  column('shipping_status', 'Shipping status', 'o.shipping_status', text),
  column('type', 'Order type', 'o.type', text),
  column('fulfillment_type', 'Fulfillment type', 'o.fulfillment_type', text),
  column('mode', 'Payment mode', 'o.mode', text),
  column('currency', 'Currency', 'o.currency', text, { selected: true }),
  ...money<Join>('subtotal', 'Subtotal', 'o.subtotal', 'o.currency'),
  ...money<Join>('manual_discount_total', 'Manual discount', 'o.manual_discount_total', 'o.currency'),
  ...money<Join>('coupon_discount_total', 'Coupon discount', 'o.coupon_discount_total', 'o.currency'),
  ...money<Join>('shipping_total', 'Shipping', 'o.shipping_total', 'o.currency'),
  ...money<Join>('tax_total', 'Tax', 'o.tax_total', 'o.currency'),
  ...money<Join>('total_amount', 'Total', 'o.total_amount', 'o.currency', true),
  ...money<Join>('total_paid', 'Paid', 'o.total_paid', 'o.currency'),
  ...money<Join>('total_refund', 'Refunded', 'o.total_refund', 'o.currency'),
  column('customer_id', 'Customer ID', 'o.customer_id', integer),
  customerNameColumn<Join>(),
  column('customer_email', 'Customer email', 'c.email', text, { selected: true, joins: ['customer'] }),
  column('billing_country', 'Billing country', 'ba.country', text, { joins: ['billing'] }),
  column('billing_city', 'Billing city', 'ba.city', text, { joins: ['billing'] }),
  column('shipping_country', 'Shipping country', 'sa.country', text, { joins: ['shipping'] }),
  column('shipping_city', 'Shipping city', 'sa.city', text, { joins: ['shipping'] }),
  column('payment_method', 'Payment method', 'o.payment_method', text, { selected: true }),
  column('payment_method_title', 'Payment method title', 'o.payment_method_title', text),
];

/** Columns read beside the row: the coupons (one query for the batch) and the item count (a correlated subquery). */
const LOOKUP_COLUMNS: OrderColumn[] = [
  {
    key: 'coupon_codes',
    label: 'Coupon codes',
    default_selected: false,
    select: [],
    coupons: true,
    read: (row) =>
      couponsOf(row)
        .map((c) => c.code)
        .join(', '),
  },
  {
    key: 'coupon_values',
    label: 'Coupon values',
    default_selected: false,
    select: ['o.currency as currency'],
    coupons: true,
    read: (row, format) =>
      couponsOf(row)
        .map((c) => `${c.code}: ${couponValue(c, text(row.currency), format)}`)
        .join(', '),
  },
  {
    key: 'item_count',
    label: 'Item count',
    default_selected: false,
    select: [],
    expression: '(select coalesce(sum(i.quantity), 0) from store_order_items i where i.order_id = o.id)',
    read: (row) => Number(row.item_count ?? 0),
  },
];

const DATE_COLUMNS: SqlColumn<Join>[] = [
  ...date<Join>('created_at', 'Created', 'o.created_at', true),
  ...date<Join>('completed_at', 'Completed', 'o.completed_at'),
  ...date<Join>('refunded_at', 'Refunded at', 'o.refunded_at'),
  ...date<Join>('updated_at', 'Updated', 'o.updated_at'),
];

/** The CSV columns of an order (README "Data export" documents each). */
const COLUMNS: OrderColumn[] = [...ROW_COLUMNS, ...LOOKUP_COLUMNS, ...DATE_COLUMNS];

const COLUMN_BY_KEY = new Map(COLUMNS.map((c) => [c.key, c]));
const definitionOf = (column: ExportColumn<SqlRow>): OrderColumn => COLUMN_BY_KEY.get(column.key)!;

/** JSON modules and the order relations (`loadRelations`) each reads. */
const MODULES: Record<string, { label: string; relations: OrderRelation[] }> = {
  items: { label: 'Order items', relations: ['order_items'] },
  transactions: { label: 'Transactions', relations: ['transactions'] },
  addresses: { label: 'Billing and shipping addresses', relations: ['billing_address', 'shipping_address'] },
  customer: { label: 'Customer', relations: ['customer'] },
  coupons: { label: 'Applied coupons', relations: ['applied_coupons'] },
};

/** A module's value from the order's loaded relations; coupon percentages (basis points) as percentages. */
const MODULE_VALUE: Record<string, (relations: OrderRelations) => unknown> = {
  items: (r) => r.order_items ?? [],
  transactions: (r) => r.transactions ?? [],
  addresses: (r) => ({ billing: r.billing_address ?? null, shipping: r.shipping_address ?? null }),
  customer: (r) => r.customer ?? null,
  coupons: (r) => (r.applied_coupons ?? []).map((c) => (c.type === 'percentage' ? { ...c, amount: c.amount / 100 } : c)),
};

/** Orders: the admin order list's rows (`GET /orders`), its filters and relations. */
export const ordersExport = exportEntity<OrderExportRow>({
  entity: 'orders',
  permission: 'orders/export',
  policy: OrderPolicy,
  table: 'store_orders as o',
  idColumn: 'o.id',
  columns: COLUMNS,
  modules: Object.entries(MODULES).map(([key, { label }]) => ({ key, label })),
  record: { key: 'order', present: (row) => presentOrder(row as unknown as OrderRow) },

  applyFilters(ctx, query, filters) {
    const { zone, ...input } = listFilterValues(filters, ORDER_LIST_VIEWS);
    orderListFilter(ctx.db, input, { zone, now: ctx.clock.now() }).apply(query);
  },

  selectRows(ctx, query, columns) {
    if (!columns) {
      query.select('o.*');
      return;
    }
    const definitions = columns.map(definitionOf);
    selectColumns(query, 'o.id', definitions, JOINS);
    for (const c of definitions) if (c.expression) query.select(ctx.db.raw(`${c.expression} as ??`, [c.key]));
  },

  async completeRows(ctx, rows, columns) {
    if (!rows.length || !columns.some((c) => definitionOf(c).coupons)) return;
    const coupons = (await ctx
      .db('store_applied_coupons')
      .whereIn(
        'order_id',
        rows.map((r) => r.id),
      )
      .orderBy(['order_id', 'priority', 'id'])
      .select('order_id', 'code', 'type', 'amount')) as Array<{ order_id: number | string; code: string; type: string; amount: number | string }>;
    const byOrder = new Map<number, CouponCell[]>();
    for (const c of coupons) {
      const list = byOrder.get(Number(c.order_id)) ?? [];
      list.push({ code: c.code, type: c.type, amount: Number(c.amount) });
      byOrder.set(Number(c.order_id), list);
    }
    for (const row of rows) row.coupons = byOrder.get(Number(row.id)) ?? [];
  },

  async loadModules(ctx, rows, modules) {
    const relations = [...new Set(modules.flatMap((m) => MODULES[m].relations))];
    const related = await loadRelations(ctx, rows as unknown as OrderRow[], relations);
    return (row) => {
      const loaded = related(row as unknown as OrderRow);
      return Object.fromEntries(modules.map((m) => [m, MODULE_VALUE[m](loaded)]));
    };
  },
});
