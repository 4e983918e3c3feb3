import type { Knex } from 'knex';
import { escapeLike } from '../../core/db';
import { invalid } from '../../core/errors';
import { ownEntry } from '../../core/lookup';
import { applySearch, nameSplits, parseSearch, type SearchSpec } from '../../core/search';
import { applyAdvancedFilters, fullNameSql, parseAdvancedFilters, type FilterContext, type FilterProperty } from '../customers/filters';
import { PURCHASE_PAYMENT_STATUSES } from '../order-records/purchases';
import type { OrderListInput, OrderListView, OrderScope } from './read-schemas';
import { ORDER_STATUSES, PAYMENT_STATUS_ALIASES, PAYMENT_STATUSES, SHIPPING_STATUSES } from './state';

/**
 * The `where` clauses of the order list (`GET /orders`), on `store_orders as o`: views, scopes, statuses, search and
 * advanced filters. One source for the list and the data export, so an export of `search_results` holds exactly the
 * orders the list shows for the same filters.
 */

/* ------------------------------------------------------------------ views and scopes */

/**
 * The list views (spec: order list views) as conditions on indexed columns: statuses by `(status, id)`, payments by
 * `(payment_status, id)`, kinds by `(type, id)`, so a view's newest page is one index range read backwards.
 * `onetime` orders are the `payment` type (the reference's one-time purchases). `canceled` serves the customer's order
 * list. `upgraded_to` and `upgraded_from` (orders a plan upgrade replaced, and the orders that replaced them) stay empty:
 * the store has no plan upgrades (a portal subscription answers `can_upgrade: false`), so no order is either.
 */
const VIEWS: Record<OrderListView | 'canceled', (q: Knex.QueryBuilder) => void> = {
  'on-hold': (q) => q.where('o.status', 'on-hold'),
  completed: (q) => q.where('o.status', 'completed'),
  processing: (q) => q.where('o.status', 'processing'),
  canceled: (q) => q.where('o.status', 'canceled'),
  paid: (q) => q.where('o.payment_status', 'paid'),
  refunded: (q) => q.where('o.payment_status', 'refunded'),
  partially_refunded: (q) => q.where('o.payment_status', 'partially-refunded'),
  renewal: (q) => q.where('o.type', 'renewal'),
  subscription: (q) => q.where('o.type', 'subscription'),
  onetime: (q) => q.where('o.type', 'payment'),
  upgraded_to: (q) => q.whereRaw('1 = 0'),
  upgraded_from: (q) => q.whereRaw('1 = 0'),
};

/** Narrows an order query (alias `o`) to one list view. */
export function applyOrderView(query: Knex.QueryBuilder, view: OrderListView | 'canceled'): void {
  VIEWS[view](query);
}

const SCOPES: Record<OrderScope, (q: Knex.QueryBuilder) => void> = {
  live: (q) => q.where('o.mode', 'live'),
  test: (q) => q.where('o.mode', 'test'),
  parents: (q) => q.whereNull('o.parent_id'),
  purchases: (q) => q.whereIn('o.payment_status', [...PURCHASE_PAYMENT_STATUSES]),
};

/* ------------------------------------------------------------------ status filters */

function checkStatuses(field: string, what: string, values: string[] | undefined, known: readonly string[], aliases: Record<string, string> = {}): string[] {
  const wanted = [...new Set((values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()))].filter(Boolean);
  const unknown = wanted.filter((v) => !known.includes(v) && ownEntry(aliases, v) === undefined);
  if (unknown.length) throw invalid(field, 'in', `Unknown ${what}: ${unknown.join(', ')}. Use one of: ${known.join(', ')}.`);
  return [...new Set(wanted.map((v) => ownEntry(aliases, v) ?? v))];
}

/* ------------------------------------------------------------------ sort and search */

/** `sort_by` may name the fillable order columns (plus id and the timestamps); anything else sorts by id. */
export const ORDER_SORTABLE: Record<string, string> = Object.fromEntries(
  [
    'id',
    'parent_id',
    'customer_id',
    'receipt_number',
    'invoice_no',
    'status',
    'payment_status',
    'shipping_status',
    'payment_method',
    'payment_method_title',
    'type',
    'fulfillment_type',
    'mode',
    'currency',
    'subtotal',
    'discount_tax',
    'manual_discount_total',
    'coupon_discount_total',
    'shipping_tax',
    'shipping_total',
    'tax_total',
    'total_amount',
    'total_paid',
    'total_refund',
    'rate',
    'ip_address',
    'completed_at',
    'refunded_at',
    'created_at',
    'updated_at',
  ].map((c) => [c, `o.${c}`]),
);

const integer = (column: string) => ({ column: `o.${column}`, kind: 'integer' as const });
const string = (column: string) => ({ column: `o.${column}`, kind: 'string' as const });
const date = (column: string) => ({ column: `o.${column}`, kind: 'date' as const });

/** Columns of the operator syntax (`status = completed`, `id > 5`, `id :: 1-10`, `total_amount >= 1000`). */
const SEARCH_COLUMNS: SearchSpec['columns'] = {
  id: integer('id'),
  parent_id: integer('parent_id'),
  customer_id: integer('customer_id'),
  receipt_number: integer('receipt_number'),
  subtotal: integer('subtotal'),
  total_amount: integer('total_amount'),
  total_paid: integer('total_paid'),
  total_refund: integer('total_refund'),
  invoice_no: string('invoice_no'),
  status: string('status'),
  payment_status: string('payment_status'),
  shipping_status: string('shipping_status'),
  payment_method: string('payment_method'),
  type: string('type'),
  fulfillment_type: string('fulfillment_type'),
  mode: string('mode'),
  currency: string('currency'),
  created_at: date('created_at'),
  updated_at: date('updated_at'),
  completed_at: date('completed_at'),
  refunded_at: date('refunded_at'),
};

/**
 * Free text finds orders by the start of the invoice number, of the customer's email, first name, last name or full
 * name ("Jane Do"), or of an item's title or product title; a number also finds that order id and receipt number.
 * Prefixes, not "anywhere" matches, so each part is an index range (1M orders: ~1 ms), never a scan of every row;
 * `invoice_no ~ 123` matches anywhere when needed. The parts are ids united in a derived table that the main query
 * joins by primary key (`o.id in (select id from (… union all …))`), which both databases run as one semi-join.
 */
function textMatch(db: Knex, text: string): Knex.QueryBuilder {
  const prefix = `${escapeLike(text)}%`;
  const like = (column: string, pattern = prefix) => [`${column} like ? escape '!'`, [pattern]] as const;
  const branches: Knex.QueryBuilder[] = [
    db('store_orders as si')
      .select('si.id')
      .whereRaw(...like('si.invoice_no')),
    db('store_customers as sc')
      .join('store_orders as so', 'so.customer_id', 'sc.id')
      .select('so.id')
      .where((q) => {
        q.whereRaw(...like('sc.email', prefix.toLowerCase()))
          .orWhereRaw(...like('sc.first_name'))
          .orWhereRaw(...like('sc.last_name'));
        for (const [first, last] of nameSplits(text)) {
          q.orWhere((name) => name.whereRaw(...like('sc.first_name', escapeLike(first))).whereRaw(...like('sc.last_name', `${escapeLike(last)}%`)));
        }
      }),
    db('store_order_items as st')
      .select('st.order_id as id')
      .where((q) => q.whereRaw(...like('st.title')).orWhereRaw(...like('st.post_title'))),
  ];
  if (/^\d{1,15}$/.test(text)) {
    branches.push(
      db('store_orders as sn').select('sn.id').where('sn.id', Number(text)),
      db('store_orders as sr').select('sr.id').where('sr.receipt_number', Number(text)),
    );
  }
  const [first, ...rest] = branches;
  const united = first.unionAll(rest).as('matches');
  return db.queryBuilder().select('matches.id').from(united);
}

/** The `search` of the order list: the operator syntax on the order's columns, free text as above. */
export function orderSearch(db: Knex): SearchSpec {
  return { columns: SEARCH_COLUMNS, idColumn: 'o.id', text: (query, text) => query.whereIn('o.id', textMatch(db, text)) };
}

/* ------------------------------------------------------------------ advanced filters */

const orderItems = (column: 'variation_id' | 'post_id') => (sub: Knex.QueryBuilder, ids: number[]) =>
  sub.select('fi.id').from('store_order_items as fi').whereRaw('?? = ??', ['fi.order_id', 'o.id']).whereIn(`fi.${column}`, ids);

/** Order properties of the advanced filters (also the customer's order list). */
export const ORDER_PROPERTIES: Record<string, FilterProperty> = {
  id: { kind: 'number', sql: () => 'o.id' },
  status: { kind: 'choice', sql: () => 'o.status', choices: ORDER_STATUSES },
  payment_status: { kind: 'choice', sql: () => 'o.payment_status', choices: PAYMENT_STATUSES },
  shipping_status: { kind: 'choice', sql: () => 'o.shipping_status', choices: SHIPPING_STATUSES },
  type: { kind: 'choice', sql: () => 'o.type' },
  fulfillment_type: { kind: 'choice', sql: () => 'o.fulfillment_type', choices: ['digital', 'physical'] },
  payment_method: { kind: 'choice', sql: () => 'o.payment_method' },
  currency: { kind: 'choice', sql: () => 'o.currency' },
  mode: { kind: 'choice', sql: () => 'o.mode', choices: ['live', 'test'] },
  invoice_no: { kind: 'text', sql: () => 'o.invoice_no' },
  note: { kind: 'text', sql: () => 'o.note' },
  subtotal: { kind: 'number', sql: () => 'o.subtotal' },
  total_amount: { kind: 'number', sql: () => 'o.total_amount' },
  total_paid: { kind: 'number', sql: () => 'o.total_paid' },
  total_refund: { kind: 'number', sql: () => 'o.total_refund' },
  shipping_total: { kind: 'number', sql: () => 'o.shipping_total' },
  coupon_discount_total: { kind: 'number', sql: () => 'o.coupon_discount_total' },
  created_at: { kind: 'date', sql: () => 'o.created_at' },
  updated_at: { kind: 'date', sql: () => 'o.updated_at' },
  completed_at: { kind: 'date', sql: () => 'o.completed_at' },
  refunded_at: { kind: 'date', sql: () => 'o.refunded_at' },
  order_items: { kind: 'ids', related: orderItems('variation_id') },
  products: { kind: 'ids', related: orderItems('post_id') },
  labels: {
    kind: 'ids',
    related: (sub, ids) =>
      sub
        .select('fl.id')
        .from('store_label_relations as fl')
        .where('fl.object_type', 'order')
        .whereRaw('?? = ??', ['fl.object_id', 'o.id'])
        .whereIn('fl.label_id', ids),
  },
  coupons: {
    kind: 'ids',
    related: (sub, ids) => sub.select('fc.id').from('store_applied_coupons as fc').whereRaw('?? = ??', ['fc.order_id', 'o.id']).whereIn('fc.coupon_id', ids),
  },
};

/** Properties of a table related to the order: a condition holds when a related row satisfies it. */
interface RelatedProperties {
  /** Ids of the orders (`o.id`) or customers (`o.customer_id`) whose related rows satisfy `where`. */
  column: 'o.id' | 'o.customer_id';
  rows: (db: Knex) => Knex.QueryBuilder;
  properties: Record<string, FilterProperty>;
}

const CUSTOMER_PROPERTIES: RelatedProperties = {
  column: 'o.customer_id',
  rows: (db) => db('store_customers as fcu').select('fcu.id'),
  properties: {
    customer_email: { kind: 'text', sql: () => 'fcu.email' },
    customer_name: { kind: 'text', sql: (db) => fullNameSql(db, 'fcu') },
    customer_first_name: { kind: 'text', sql: () => 'fcu.first_name' },
    customer_last_name: { kind: 'text', sql: () => 'fcu.last_name' },
    customer_country: { kind: 'text', sql: () => 'fcu.country' },
    customer_city: { kind: 'text', sql: () => 'fcu.city' },
    customer_status: { kind: 'choice', sql: () => 'fcu.status', choices: ['active', 'inactive', 'archived'] },
    customer_ltv: { kind: 'number', sql: () => 'fcu.ltv' },
    customer_purchase_count: { kind: 'number', sql: () => 'fcu.purchase_count' },
    customer_created_at: { kind: 'date', sql: () => 'fcu.created_at' },
  },
};

const TRANSACTION_PROPERTIES: RelatedProperties = {
  column: 'o.id',
  rows: (db) => db('store_order_transactions as ft').select('ft.order_id'),
  properties: {
    /** The gateway's charge id. */
    transaction_id: { kind: 'text', sql: () => 'ft.vendor_charge_id' },
    transaction_status: { kind: 'choice', sql: () => 'ft.status' },
    transaction_type: { kind: 'choice', sql: () => 'ft.transaction_type' },
    transaction_payment_method: { kind: 'choice', sql: () => 'ft.payment_method' },
    transaction_total: { kind: 'number', sql: () => 'ft.total' },
    card_last_4: { kind: 'text', sql: () => 'ft.card_last_4' },
    card_brand: { kind: 'text', sql: () => 'ft.card_brand' },
    transaction_created_at: { kind: 'date', sql: () => 'ft.created_at' },
  },
};

const UTM_PROPERTIES: RelatedProperties = {
  column: 'o.id',
  rows: (db) => db('store_order_operations as fo').select('fo.order_id'),
  properties: Object.fromEntries(
    ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'utm_id', 'refer_url', 'created_via'].map((c) => [
      c,
      { kind: 'text', sql: () => `fo.${c}` } satisfies FilterProperty,
    ]),
  ),
};

const RELATED = [CUSTOMER_PROPERTIES, TRANSACTION_PROPERTIES, UTM_PROPERTIES];

/** Every property `advanced_filters` may name on `GET /orders`. */
export const ORDER_FILTER_PROPERTIES: Record<string, FilterProperty> = Object.assign({}, ORDER_PROPERTIES, ...RELATED.map((r) => r.properties));

type Groups = ReturnType<typeof parseAdvancedFilters>;

/**
 * Any group may match, every condition of a group must: order conditions apply to the order row, the others as
 * `o.customer_id in (customers satisfying it)` or `o.id in (orders with a transaction / UTM record satisfying it)`.
 */
export function applyOrderFilters(query: Knex.QueryBuilder, db: Knex, groups: Groups, ctx: FilterContext): void {
  if (!groups.some((g) => g.length)) return;
  query.where((outer) => {
    for (const group of groups.filter((g) => g.length)) {
      outer.orWhere((inner) => {
        for (const condition of group) {
          const related = RELATED.find((r) => Object.hasOwn(r.properties, condition.property));
          if (!related) applyAdvancedFilters(inner, db, [[condition]], ORDER_PROPERTIES, ctx);
          else inner.whereIn(related.column, applyTo(related.rows(db), db, condition, related.properties, ctx));
        }
      });
    }
  });
}

function applyTo(rows: Knex.QueryBuilder, db: Knex, condition: Groups[number][number], properties: Record<string, FilterProperty>, ctx: FilterContext) {
  applyAdvancedFilters(rows, db, [[condition]], properties, ctx);
  return rows;
}

/* ------------------------------------------------------------------ the filters of one request */

/** The parameters of `GET /orders` that narrow the list. */
export type OrderFilterInput = Pick<
  OrderListInput,
  'active_view' | 'payment_statuses' | 'order_statuses' | 'shipping_statuses' | 'scopes' | 'search' | 'filter_type' | 'advanced_filters'
>;

export interface OrderListFilter {
  /** Adds the conditions to a query on `store_orders as o`. */
  apply(query: Knex.QueryBuilder): void;
  /** Whether anything beyond the view narrows the list (the plain list and the views count from a cache). */
  narrowed: boolean;
}

/** Checks the filters (a 422 naming the field for a value the list refuses) and returns their conditions. */
export function orderListFilter(db: Knex, input: OrderFilterInput, at: FilterContext): OrderListFilter {
  const groups = input.filter_type === 'advanced' ? parseAdvancedFilters(input.advanced_filters, ORDER_FILTER_PROPERTIES, at) : [];
  const payment = checkStatuses('payment_statuses', 'payment status', input.payment_statuses, PAYMENT_STATUSES, PAYMENT_STATUS_ALIASES);
  const statuses = checkStatuses('order_statuses', 'order status', input.order_statuses, ORDER_STATUSES);
  const shipping = checkStatuses('shipping_statuses', 'shipping status', input.shipping_statuses, SHIPPING_STATUSES);
  const term = parseSearch(input.search);
  const scopes = new Set(input.scopes ?? []);
  return {
    apply(q) {
      if (input.active_view) applyOrderView(q, input.active_view);
      if (payment.length) q.whereIn('o.payment_status', payment);
      if (statuses.length) q.whereIn('o.status', statuses);
      if (shipping.length) q.whereIn('o.shipping_status', shipping);
      for (const scope of scopes) SCOPES[scope](q);
      applySearch(q, term, orderSearch(db), at.zone);
      applyOrderFilters(q, db, groups, at);
    },
    narrowed: Boolean(payment.length || statuses.length || shipping.length || scopes.size || term.kind !== 'empty' || groups.length),
  };
}
