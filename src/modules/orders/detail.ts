import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { parseJson } from '../../core/db';
import { fail } from '../../core/errors';
import { by, ownerIds, relatedRows, type Branch, type Related as RelatedRows, type Row } from '../../core/related';
import { presentActivity } from '../activities/service';
import type { Activity } from '../activities/types';
import { presentAdmin, presentCustomer, type AdminCustomer, type CustomerRow } from '../customers/presenter';
import { presentLabel } from '../labels/service';
import type { Label } from '../labels/types';
import {
  presentAppliedCoupon,
  presentOrder,
  presentOrderAddress,
  presentOrderItem,
  presentOrderOperation,
  presentTransaction,
  type AppliedCoupon,
  type Order,
  type OrderAddress,
  type OrderOperation,
  type OrderRow,
  type Transaction,
} from '../order-records/presenter';
import { presentSubscription } from '../subscription-records/presenter';
import type { Subscription } from '../subscription-records/types';
import type { OrderRelation } from './read-schemas';

type Item = ReturnType<typeof presentOrderItem>;

/* ------------------------------------------------------------------ related rows in one query */

/**
 * Everything an order relates to is read in ONE statement (see core/related.ts): the detail costs one query instead of
 * ten, and `with[]` on the list one query whatever the relations asked for.
 */
type Kind = 'customer' | 'item' | 'transaction' | 'address' | 'label' | 'coupon' | 'operation' | 'subscription' | 'order' | 'parent' | 'child' | 'activity';
type BranchName = Exclude<Kind, 'order' | 'parent' | 'child'> | 'orders';

const BRANCHES: Record<BranchName, Branch> = {
  customer: {
    table: 'store_customers',
    kind: `'customer'`,
    owner: 't.id',
    from: 'store_customers t where t.id in (select customer_id from store_orders where id in (IDS))',
  },
  item: { table: 'store_order_items', kind: `'item'`, owner: 't.order_id', from: 'store_order_items t where t.order_id in (IDS)' },
  transaction: { table: 'store_order_transactions', kind: `'transaction'`, owner: 't.order_id', from: 'store_order_transactions t where t.order_id in (IDS)' },
  address: { table: 'store_order_addresses', kind: `'address'`, owner: 't.order_id', from: 'store_order_addresses t where t.order_id in (IDS)' },
  label: {
    table: 'store_labels',
    kind: `'label'`,
    owner: 'r.object_id',
    from: `store_label_relations r join store_labels t on t.id = r.label_id where r.object_type = 'order' and r.object_id in (IDS)`,
  },
  coupon: { table: 'store_applied_coupons', kind: `'coupon'`, owner: 't.order_id', from: 'store_applied_coupons t where t.order_id in (IDS)' },
  operation: { table: 'store_order_operations', kind: `'operation'`, owner: 't.order_id', from: 'store_order_operations t where t.order_id in (IDS)' },
  /** An order's subscriptions: its own (a subscription order), or for a renewal those of the order it renews. */
  subscription: {
    table: 'store_subscriptions',
    kind: `'subscription'`,
    owner: 'o.id',
    from: `store_orders o join store_subscriptions t on t.parent_order_id = case when o.type = 'renewal' then o.parent_id else o.id end where o.id in (IDS)`,
  },
  /**
   * The order itself, its children and its parent, in one pass over `store_orders` (for one order: the parent is a
   * scalar subquery, which keeps both databases on an index union where `in (subquery)` would scan the table).
   */
  orders: {
    table: 'store_orders',
    kind: `case when t.id in (IDS) then 'order' when t.parent_id in (IDS) then 'child' else 'parent' end`,
    owner: 't.id',
    from: 'store_orders t where t.id in (IDS) or t.parent_id in (IDS) or t.id = (select parent_id from store_orders where id in (IDS))',
  },
  /** Every log entry of the orders (an order gathers a few dozen at most: one per change). */
  activity: {
    table: 'store_activities',
    kind: `'activity'`,
    owner: 't.object_id',
    from: `store_activities t where t.object_type = 'order' and t.object_id in (IDS)`,
  },
};

type Related = RelatedRows<Kind>;

/** Rows of the given branches related to the orders `ids`, by kind. */
function relatedOf(db: Knex, ids: readonly number[], names: readonly BranchName[], prepared = false): Promise<Related> {
  return relatedRows<Kind>(
    db,
    names.map((name) => BRANCHES[name]),
    ownerIds(ids),
    { prepared },
  );
}

/** Groups presented rows by owner, sorted by `compare` first. */
function byOwner<T>(entries: Array<{ owner: number; row: Row }>, present: (row: Row) => T, compare: (a: Row, b: Row) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const { owner, row } of [...entries].sort((a, b) => compare(a.row, b.row))) {
    const list = out.get(owner) ?? [];
    list.push(present(row));
    out.set(owner, list);
  }
  return out;
}

/* ------------------------------------------------------------------ relations */

export interface OrderRelations {
  customer?: AdminCustomer | null;
  order_items?: Item[];
  transactions?: Transaction[];
  billing_address?: OrderAddress | null;
  shipping_address?: OrderAddress | null;
  labels?: Label[];
  applied_coupons?: AppliedCoupon[];
  order_operation?: OrderOperation | null;
  subscriptions?: Subscription[];
}

const BRANCH_OF: Partial<Record<OrderRelation, BranchName>> = {
  customer: 'customer',
  order_items: 'item',
  transactions: 'transaction',
  billing_address: 'address',
  shipping_address: 'address',
  labels: 'label',
  applied_coupons: 'coupon',
  order_operation: 'operation',
  subscriptions: 'subscription',
};

/** Presents the related rows of some orders; the result gives the relations of one order. */
async function presentRelations(ctx: Ctx, related: Related, wanted: readonly OrderRelation[]): Promise<(row: OrderRow) => OrderRelations> {
  const has = (r: OrderRelation) => wanted.includes(r);
  const rows = (kind: Kind) => related.get(kind) ?? [];
  const customers = new Map(rows('customer').map(({ owner, row }) => [owner, presentAdmin(ctx.host, presentCustomer(row as unknown as CustomerRow))]));
  const items = byOwner(rows('item'), presentOrderItem, by('cart_index', 'id'));
  const transactions = byOwner(rows('transaction'), presentTransaction, by('id'));
  const labels = byOwner(rows('label'), (row) => presentLabel(row as unknown as Parameters<typeof presentLabel>[0]), by('id'));
  const coupons = byOwner(rows('coupon'), presentAppliedCoupon, by('priority', 'id'));
  const operations = byOwner(rows('operation'), presentOrderOperation, by('id'));
  const subscriptions = byOwner(rows('subscription'), presentSubscription, by('id'));
  const addresses = new Map<string, OrderAddress>();
  for (const address of await Promise.all(rows('address').map(({ row }) => presentOrderAddress(row))))
    addresses.set(`${address.order_id}:${address.type}`, address);
  return (row) => {
    const id = Number(row.id);
    const out: OrderRelations = {};
    if (has('customer')) out.customer = row.customer_id === null ? null : (customers.get(Number(row.customer_id)) ?? null);
    if (has('order_items')) out.order_items = items.get(id) ?? [];
    if (has('transactions')) out.transactions = transactions.get(id) ?? [];
    if (has('billing_address')) out.billing_address = addresses.get(`${id}:billing`) ?? null;
    if (has('shipping_address')) out.shipping_address = addresses.get(`${id}:shipping`) ?? null;
    if (has('labels')) out.labels = labels.get(id) ?? [];
    if (has('applied_coupons')) out.applied_coupons = coupons.get(id) ?? [];
    if (has('order_operation')) out.order_operation = operations.get(id)?.[0] ?? null;
    if (has('subscriptions')) out.subscriptions = subscriptions.get(id) ?? [];
    return out;
  };
}

const branchesOf = (wanted: readonly OrderRelation[]): BranchName[] => [
  ...new Set(wanted.map((r) => BRANCH_OF[r]).filter((b): b is BranchName => b !== undefined)),
];

/** Loads the requested relations of many orders in one query (no N+1); the result gives the relations of one order. */
export async function loadRelations(ctx: Ctx, rows: readonly OrderRow[], wanted: readonly OrderRelation[]): Promise<(row: OrderRow) => OrderRelations> {
  const related = await relatedOf(
    ctx.db,
    rows.map((r) => Number(r.id)),
    branchesOf(wanted),
  );
  return presentRelations(ctx, related, wanted);
}

/* ------------------------------------------------------------------ the detail */

const DETAIL_RELATIONS: readonly OrderRelation[] = [
  'customer',
  'order_items',
  'transactions',
  'billing_address',
  'shipping_address',
  'labels',
  'applied_coupons',
  'order_operation',
  'subscriptions',
];

export const orderNotFound = () => fail('not_found', 'Order not found');

const object = (value: unknown): Record<string, unknown> => {
  const parsed = parseJson<unknown>(value, {});
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
};

/**
 * What the order's `config` JSON holds beyond the columns, split for the detail answer:
 * - `discount_meta`: the manual discount as sent (`{type, label, reason, action, value}`) plus `amount`, the cents it
 *   took off (`manual_discount_total`); null when the order has no manual discount.
 * - `shipping_meta`: `{entries, shipping_total, shipping_tax, shipping_status}`, `entries` being the shipping entries
 *   as sent (`{type, rate_name, custom_price}`).
 * - `order_settings`: every other key of `config`, plus the order's `mode` and `tax_behavior`.
 * - `selected_labels`: the ids of the order's labels.
 * - `tax_id`: the buyer's tax number (`config.tax_id`, else the billing address's `meta.tax_id`), or null.
 */
function metaOf(order: Order, row: OrderRow, billing: OrderAddress | null, labels: Label[]) {
  const config = object(row.config);
  const { discount, shipping, tax_id: configTaxId, ...settings } = config;
  const manual = discount && typeof discount === 'object' && !Array.isArray(discount) ? (discount as Record<string, unknown>) : null;
  const taxId = configTaxId ?? billing?.meta.tax_id;
  return {
    discount_meta: manual || order.manual_discount_total ? { ...manual, amount: order.manual_discount_total } : null,
    shipping_meta: {
      entries: Array.isArray(shipping) ? shipping : [],
      shipping_total: order.shipping_total,
      shipping_tax: order.shipping_tax,
      shipping_status: order.shipping_status,
    },
    order_settings: { ...settings, mode: order.mode, tax_behavior: Number(row.tax_behavior ?? 0) },
    selected_labels: labels.map((l) => l.id),
    tax_id: typeof taxId === 'string' && taxId ? taxId : null,
  };
}

/** The public pages of an order, by its uuid (the host site serves them). */
function orderUrls(ctx: Ctx, uuid: string) {
  const site = ctx.host.site.url.replace(/\/+$/, '');
  const hash = encodeURIComponent(uuid);
  return { receipt_url: `${site}/receipt/?order_hash=${hash}`, custom_checkout_url: `${site}/checkout/?order_hash=${hash}` };
}

/**
 * `GET /orders/{order_id}`: the order with every relation of the spec, and the detail's side fields, in one query (a
 * prepared statement on MySQL/MariaDB: its text is the same for every order).
 */
export async function orderDetail(ctx: Ctx, id: number) {
  const related = await relatedOf(ctx.db, [id], [...branchesOf(DETAIL_RELATIONS), 'orders', 'activity'], true);
  const row = related.get('order')?.[0]?.row as OrderRow | undefined;
  if (!row) throw orderNotFound();
  const relations = (await presentRelations(ctx, related, DETAIL_RELATIONS))(row);
  const parent = related.get('parent')?.[0]?.row as OrderRow | undefined;
  const children = (related.get('child') ?? []).map((c) => c.row as OrderRow).sort(by('id'));
  const activities: Activity[] = (related.get('activity') ?? [])
    .map((a) => a.row)
    .sort(by('-id'))
    .map((a) => presentActivity(a as unknown as Parameters<typeof presentActivity>[0]));
  const order = presentOrder(row);
  return {
    order: {
      ...order,
      ...relations,
      activities,
      children: children.map(presentOrder),
      parent_order: parent ? presentOrder(parent) : null,
      ...orderUrls(ctx, order.uuid),
      /** The licensing module is off: no order can miss a license. */
      has_missing_licenses: false,
    },
    ...metaOf(order, row, relations.billing_address ?? null, relations.labels ?? []),
  };
}
