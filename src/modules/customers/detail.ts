import type { HostUser } from '../../host/contract';
import type { Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import { by, ownerIds, relatedRows, type Branch, type Owners, type Related, type Row } from '../../core/related';
import { presentLabel } from '../labels/service';
import { presentSubscription } from '../subscription-records/presenter';
import { presentOrder, presentOrderSummary, type OrderRow } from '../order-records/presenter';
import { presentAddresses, type AddressRow } from './addresses';
import { customerIdOf } from './owner';
import { presentAdmin, presentCustomer, presentPortal, type AdminCustomer, type CustomerRow } from './presenter';
import type { CUSTOMER_DETAIL_WITH, PORTAL_WITH } from './schemas';

/**
 * `GET /customers/{customerId}`, admin and portal: the customer and every relation asked for in ONE statement
 * (core/related.ts), run as a prepared statement. Only `with[]=wpUser` adds a read, of the host's user.
 */
type Kind = 'customer' | 'billing_address' | 'shipping_address' | 'labels' | 'orders' | 'recent_orders' | 'subscriptions';

const address = (type: 'billing' | 'shipping'): Branch => ({
  table: 'store_customer_addresses',
  kind: `'${type}_address'`,
  owner: 't.customer_id',
  from: `store_customer_addresses t where t.customer_id in (IDS) and t.type = '${type}'`,
});

const BRANCHES: Record<Kind, Branch> = {
  customer: { table: 'store_customers', kind: `'customer'`, owner: 't.id', from: 'store_customers t where t.id in (IDS)' },
  billing_address: address('billing'),
  shipping_address: address('shipping'),
  labels: {
    table: 'store_labels',
    kind: `'labels'`,
    owner: 'r.object_id',
    from: `store_label_relations r join store_labels t on t.id = r.label_id where r.object_type = 'customer' and r.object_id in (IDS)`,
  },
  orders: { table: 'store_orders', kind: `'orders'`, owner: 't.customer_id', from: 'store_orders t where t.customer_id in (IDS)' },
  /** The portal shows the newest 50 orders. */
  recent_orders: {
    table: 'store_orders',
    kind: `'recent_orders'`,
    owner: 't.customer_id',
    from: '(select * from store_orders where customer_id in (IDS) order by id desc limit 50) t',
  },
  subscriptions: { table: 'store_subscriptions', kind: `'subscriptions'`, owner: 't.customer_id', from: 'store_subscriptions t where t.customer_id in (IDS)' },
};

/** The customer's row and the rows of `kinds`; null when there is no such customer (or it is not the caller's). */
async function customerWith(ctx: Ctx, owners: Owners, kinds: readonly Kind[]): Promise<{ row: CustomerRow; related: Related<Kind> } | null> {
  const related = await relatedRows<Kind>(
    ctx.db,
    ['customer' as const, ...kinds].map((kind) => BRANCHES[kind]),
    owners,
    { prepared: true },
  );
  const row = related.get('customer')?.[0]?.row as CustomerRow | undefined;
  return row ? { row, related } : null;
}

const rowsOf = (related: Related<Kind>, kind: Kind, compare: (a: Row, b: Row) => number): Row[] => (related.get(kind) ?? []).map((r) => r.row).sort(compare);

/** Primary first, then by id (as the address list). */
const addressesIn = (related: Related<Kind>, kind: 'billing_address' | 'shipping_address') =>
  presentAddresses(rowsOf(related, kind, by('-is_primary', 'id')) as unknown as AddressRow[]);

const labelsIn = (related: Related<Kind>) =>
  rowsOf(related, 'labels', by('id')).map((row) => presentLabel(row as unknown as Parameters<typeof presentLabel>[0]));

/** Newest first. */
const ordersIn = (related: Related<Kind>, kind: 'orders' | 'recent_orders') => rowsOf(related, kind, by('-id')) as unknown as OrderRow[];

/* ------------------------------------------------------------------ admin */

type AdminWith = (typeof CUSTOMER_DETAIL_WITH)[number];

/**
 * The admin shape: the record with its computed fields; then, in this order, the relations asked for (`orders`,
 * `labels`, `billing_address`, `shipping_address`), `selected_labels` and `labels` (unless `customerOnly`),
 * `subscriptions` (newest first) and `wp_user` when asked for. Null when there is no such customer.
 */
export async function adminCustomerDetail(
  ctx: Ctx,
  id: number,
  options: { with?: readonly AdminWith[]; customerOnly?: boolean } = {},
): Promise<(AdminCustomer & Record<string, unknown>) | null> {
  const wanted = options.with ?? [];
  const relations = (['orders', 'labels', 'billing_address', 'shipping_address'] as const).filter((r) => wanted.includes(r));
  const withLabels = !options.customerOnly || relations.includes('labels');
  const found = await customerWith(ctx, ownerIds([id]), [
    ...relations.filter((r) => r !== 'labels'),
    ...(withLabels ? (['labels'] as const) : []),
    ...(wanted.includes('subscriptions') ? (['subscriptions'] as const) : []),
  ]);
  if (!found) return null;
  const { row, related } = found;
  const out = presentAdmin(ctx.host, presentCustomer(row)) as AdminCustomer & Record<string, unknown>;
  const labels = labelsIn(related);
  for (const relation of relations) {
    if (relation === 'orders') out.orders = ordersIn(related, 'orders').map(presentOrder);
    else if (relation === 'labels') out.labels = labels;
    else out[relation] = await addressesIn(related, relation);
  }
  if (!options.customerOnly) Object.assign(out, { selected_labels: labels.map((l) => l.id), labels });
  if (wanted.includes('subscriptions')) out.subscriptions = rowsOf(related, 'subscriptions', by('-id')).map(presentSubscription);
  if (wanted.includes('wpUser')) out.wp_user = out.user_id === null ? null : publicUser(await ctx.host.users.findById(out.user_id));
  return out;
}

function publicUser(user: HostUser | null) {
  if (!user) return null;
  return {
    id: user.id,
    user_login: user.login,
    user_email: user.email,
    display_name: user.display_name,
    user_nicename: user.nicename,
    first_name: user.first_name,
    last_name: user.last_name,
    user_url: user.url,
    user_registered: user.registered,
    roles: user.roles,
  };
}

/* ------------------------------------------------------------------ portal */

/** The customer `id` if it is linked to the caller: ownership is part of the statement. */
const ownedBy = (id: number, userId: number): Owners => ({
  sql: 'select c.id from store_customers c where c.id = ? and c.user_id = ?',
  bindings: [id, userId],
});

/**
 * The portal shape of the caller's own record, with `billing_address`, `shipping_address` and `orders` (summaries of
 * the newest 50) when asked for; 403 with the spec's message for anyone else's record. A caller whose record is not
 * linked yet owns the unlinked record with their verified email (`customerIdOf`), which is then read by id.
 */
export async function portalCustomerDetail(ctx: Ctx, id: number, wanted: ReadonlyArray<(typeof PORTAL_WITH)[number]>): Promise<Record<string, unknown>> {
  const scope = ctx.scope!;
  const kinds = (['billing_address', 'shipping_address', 'orders'] as const)
    .filter((r) => wanted.includes(r))
    .map((r) => (r === 'orders' ? 'recent_orders' : r));
  const found =
    (await customerWith(ctx, ownedBy(id, scope.user_id), kinds)) ??
    ((await customerIdOf(ctx.db, scope)) === id ? await customerWith(ctx, ownerIds([id]), kinds) : null);
  if (!found) throw fail('rest_forbidden', 'You are not authorized to view this customer');
  const { row, related } = found;
  const customer: Record<string, unknown> = presentPortal(presentCustomer(row));
  if (kinds.includes('billing_address')) customer.billing_address = await addressesIn(related, 'billing_address');
  if (kinds.includes('shipping_address')) customer.shipping_address = await addressesIn(related, 'shipping_address');
  if (kinds.includes('recent_orders')) customer.orders = ordersIn(related, 'recent_orders').map(presentOrderSummary);
  return customer;
}
