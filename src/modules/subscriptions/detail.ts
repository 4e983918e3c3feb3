import type { Ctx } from '../../core/context';
import { by, ownerIds, relatedRows, type Branch, type Related, type Row } from '../../core/related';
import { presentActivity } from '../activities/service';
import type { Activity } from '../activities/types';
import { presentAddresses, type AddressRow } from '../customers/addresses';
import { presentAdmin, presentCustomer, type AdminCustomer, type CustomerRow } from '../customers/presenter';
import type { Address } from '../customers/types';
import { presentLabel } from '../labels/service';
import type { Label } from '../labels/types';
import { presentOrder, presentOrderAddress, presentOrderItem, type Order, type OrderAddress, type OrderRow } from '../order-records/presenter';
import type { SubscriptionRelation } from './admin-read-schemas';
import { presentSubscription, type SubscriptionRow } from './presenter';
import type { Subscription } from './types';

/**
 * What a subscription relates to, read in ONE statement (core/related.ts) keyed by subscription id: the detail costs
 * one query, and `with[]` on the list one query for the whole page whatever it asks for. Its parent order, addresses and
 * renewals are reached through `parent_order_id` inside the statement (`s` is the subscription).
 */
type Kind = 'subscription' | 'order' | 'renewal' | 'item' | 'address' | 'customer' | 'customer_billing' | 'customer_shipping' | 'label' | 'activity';

const ofSubscription = (join: string, where = '') => `store_subscriptions s join ${join} where s.id in (IDS)${where}`;

const customerAddresses = (type: 'billing' | 'shipping'): Branch => ({
  table: 'store_customer_addresses',
  kind: `'customer_${type}'`,
  owner: 's.id',
  from: ofSubscription('store_customer_addresses t on t.customer_id = s.customer_id', ` and t.type = '${type}'`),
});

const BRANCHES: Record<Exclude<Kind, 'item'> | 'parent_items' | 'renewal_items', Branch> = {
  subscription: { table: 'store_subscriptions', kind: `'subscription'`, owner: 't.id', from: 'store_subscriptions t where t.id in (IDS)' },
  order: { table: 'store_orders', kind: `'order'`, owner: 's.id', from: ofSubscription('store_orders t on t.id = s.parent_order_id') },
  /** Orders with `parent_id` = the parent order and type `renewal`. */
  renewal: {
    table: 'store_orders',
    kind: `'renewal'`,
    owner: 's.id',
    from: ofSubscription(`store_orders t on t.parent_id = s.parent_order_id and t.type = 'renewal'`),
  },
  /** Items by order id (a list page may reach an order through two subscriptions: the presenter keeps one of each). */
  parent_items: {
    table: 'store_order_items',
    kind: `'item'`,
    owner: 't.order_id',
    from: ofSubscription('store_order_items t on t.order_id = s.parent_order_id'),
  },
  renewal_items: {
    table: 'store_order_items',
    kind: `'item'`,
    owner: 't.order_id',
    from: ofSubscription(`store_orders r on r.parent_id = s.parent_order_id and r.type = 'renewal' join store_order_items t on t.order_id = r.id`),
  },
  address: {
    table: 'store_order_addresses',
    kind: `'address'`,
    owner: 's.id',
    from: ofSubscription('store_order_addresses t on t.order_id = s.parent_order_id'),
  },
  customer: { table: 'store_customers', kind: `'customer'`, owner: 's.id', from: ofSubscription('store_customers t on t.id = s.customer_id') },
  customer_billing: customerAddresses('billing'),
  customer_shipping: customerAddresses('shipping'),
  label: {
    table: 'store_labels',
    kind: `'label'`,
    owner: 'r.object_id',
    from: `store_label_relations r join store_labels t on t.id = r.label_id where r.object_type = 'subscription' and r.object_id in (IDS)`,
  },
  activity: {
    table: 'store_activities',
    kind: `'activity'`,
    owner: 't.object_id',
    from: `store_activities t where t.object_type = 'subscription' and t.object_id in (IDS)`,
  },
};

type BranchName = keyof typeof BRANCHES;

/** The branches each relation needs. */
const BRANCHES_OF: Record<SubscriptionRelation, BranchName[]> = {
  customer: ['customer'],
  order: ['order', 'address'],
  billing_address: ['address'],
  shipping_address: ['address'],
  labels: ['label'],
  activities: ['activity'],
  related_orders: ['order', 'renewal', 'parent_items', 'renewal_items'],
};

/** The customer of a subscription, with their addresses (primary first) on the detail. */
export type SubscriptionCustomer = AdminCustomer & { billing_address?: Address[]; shipping_address?: Address[] };

export interface SubscriptionRelations {
  customer?: SubscriptionCustomer | null;
  /** The parent order with its addresses. */
  order?: (Order & { billing_address: OrderAddress | null; shipping_address: OrderAddress | null }) | null;
  /** The parent order's addresses. */
  billing_address?: OrderAddress | null;
  shipping_address?: OrderAddress | null;
  labels?: Label[];
  selected_labels?: number[];
  activities?: Activity[];
  /** The parent order and its renewal orders, newest first, each with its items. */
  related_orders?: Array<Order & { order_items: Array<ReturnType<typeof presentOrderItem>> }>;
}

function grouped(related: Related<Kind>, kind: Kind, compare: (a: Row, b: Row) => number): Map<number, Row[]> {
  const out = new Map<number, Row[]>();
  for (const { owner, row } of [...(related.get(kind) ?? [])].sort((a, b) => compare(a.row, b.row))) {
    const list = out.get(owner) ?? [];
    list.push(row);
    out.set(owner, list);
  }
  return out;
}

/** Items by order, each item once, in cart order. */
function itemsByOrder(related: Related<Kind>): Map<number, Array<ReturnType<typeof presentOrderItem>>> {
  const unique = new Map<number, { owner: number; row: Row }>();
  for (const entry of related.get('item') ?? []) unique.set(Number(entry.row.id), entry);
  const out = new Map<number, Array<ReturnType<typeof presentOrderItem>>>();
  for (const { owner, row } of [...unique.values()].sort((a, b) => by('cart_index', 'id')(a.row, b.row))) {
    const list = out.get(owner) ?? [];
    list.push(presentOrderItem(row));
    out.set(owner, list);
  }
  return out;
}

/** Presents the related rows; the result gives the relations of one subscription. */
async function presentRelations(
  ctx: Ctx,
  related: Related<Kind>,
  wanted: readonly SubscriptionRelation[],
  customerAddresses: boolean,
): Promise<(id: number) => SubscriptionRelations> {
  const has = (r: SubscriptionRelation) => wanted.includes(r);
  const one = (kind: Kind) => new Map((related.get(kind) ?? []).map(({ owner, row }) => [owner, row]));
  const orders = one('order');
  const customers = one('customer');
  const renewals = grouped(related, 'renewal', by('-id'));
  const labels = grouped(related, 'label', by('id'));
  const activities = grouped(related, 'activity', by('-id'));
  const billing = grouped(related, 'customer_billing', by('-is_primary', 'id'));
  const shipping = grouped(related, 'customer_shipping', by('-is_primary', 'id'));
  const items = itemsByOrder(related);
  const addresses = new Map<string, OrderAddress>();
  for (const { owner, row } of related.get('address') ?? []) addresses.set(`${owner}:${String(row.type)}`, await presentOrderAddress(row));
  const customerOf = new Map<number, SubscriptionCustomer>();
  for (const [owner, row] of customers) {
    const customer: SubscriptionCustomer = presentAdmin(ctx.host, presentCustomer(row as unknown as CustomerRow));
    if (customerAddresses) {
      customer.billing_address = await presentAddresses((billing.get(owner) ?? []) as unknown as AddressRow[]);
      customer.shipping_address = await presentAddresses((shipping.get(owner) ?? []) as unknown as AddressRow[]);
    }
    customerOf.set(owner, customer);
  }

  return (id) => {
    const out: SubscriptionRelations = {};
    const parent = orders.get(id);
    const address = (type: string) => addresses.get(`${id}:${type}`) ?? null;
    const withItems = (row: Row) => ({ ...presentOrder(row as OrderRow), order_items: items.get(Number(row.id)) ?? [] });
    if (has('customer')) out.customer = customerOf.get(id) ?? null;
    if (has('order'))
      out.order = parent ? { ...presentOrder(parent as OrderRow), billing_address: address('billing'), shipping_address: address('shipping') } : null;
    if (has('billing_address')) out.billing_address = address('billing');
    if (has('shipping_address')) out.shipping_address = address('shipping');
    if (has('labels')) {
      out.labels = (labels.get(id) ?? []).map((row) => presentLabel(row as unknown as Parameters<typeof presentLabel>[0]));
      out.selected_labels = out.labels.map((l) => l.id);
    }
    if (has('activities')) out.activities = (activities.get(id) ?? []).map((row) => presentActivity(row as unknown as Parameters<typeof presentActivity>[0]));
    if (has('related_orders')) out.related_orders = [...(renewals.get(id) ?? []), ...(parent ? [parent] : [])].map(withItems);
    return out;
  };
}

const branchesFor = (wanted: readonly SubscriptionRelation[]): Branch[] => [...new Set(wanted.flatMap((r) => BRANCHES_OF[r]))].map((name) => BRANCHES[name]);

/** Loads the requested relations of a page of subscriptions in one statement (no N+1). */
export async function loadSubscriptionRelations(
  ctx: Ctx,
  ids: readonly number[],
  wanted: readonly SubscriptionRelation[],
): Promise<(id: number) => SubscriptionRelations> {
  const related = await relatedRows<Kind>(ctx.db, branchesFor(wanted), ownerIds(ids));
  return presentRelations(ctx, related, wanted, false);
}

const DETAIL_RELATIONS: readonly SubscriptionRelation[] = [
  'billing_address',
  'shipping_address',
  'labels',
  'activities',
  'customer',
  'order',
  'related_orders',
];

export type SubscriptionDetail = Subscription & SubscriptionRelations;

/**
 * `GET /subscriptions/{id}`: the subscription with every relation of the spec's administrative detail, in one
 * prepared statement (its text is the same for every subscription); null when there is none.
 */
export async function subscriptionDetail(ctx: Ctx, id: number): Promise<{ subscription: SubscriptionDetail; selected_labels: number[] } | null> {
  const branches = [BRANCHES.subscription, ...branchesFor(DETAIL_RELATIONS), BRANCHES.customer_billing, BRANCHES.customer_shipping];
  const related = await relatedRows<Kind>(ctx.db, branches, ownerIds([id]), { prepared: true });
  const row = related.get('subscription')?.[0]?.row as SubscriptionRow | undefined;
  if (!row) return null;
  const relations = (await presentRelations(ctx, related, DETAIL_RELATIONS, true))(id);
  const selected_labels = relations.selected_labels ?? [];
  return { subscription: { ...presentSubscription(row), ...relations }, selected_labels };
}
