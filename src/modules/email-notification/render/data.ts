import type { Knex } from 'knex';
import type { Ctx } from '../../../core/context';
import { transactionOf } from '../../../core/db';
import { presentOrder, presentOrderAddress, presentOrderItem, presentTransaction, type OrderRow } from '../../order-records/presenter';
import { CHARGE_TYPES, TRANSACTION_STATUS } from '../../orders/ledger';
import { getStoreSettings } from '../../settings/store-settings';
import { presentSubscription } from '../../subscription-records/presenter';
import type { SendEmailJob } from '../types';
import { composeEmailData, type EmailAddress, type EmailRecords } from './compose';
import type { EmailData } from './types';

type Db = Knex | Knex.Transaction;

/** The transaction to read options through (on SQLite it holds the only connection). */

type Row = Record<string, unknown>;

async function address(row: Row | undefined): Promise<EmailAddress | null> {
  if (!row) return null;
  const { name, email, city, state, country, formatted_address } = await presentOrderAddress(row);
  return { name, email, city, state, country, full_address: formatted_address.full_address };
}

/** The transaction the email is about (when it belongs to the order), else the order's latest charge, a succeeded one first. */
async function transactionRow(db: Db, orderId: number, transactionId: number | undefined): Promise<Row | undefined> {
  const given =
    transactionId === undefined
      ? undefined
      : ((await db('store_order_transactions').where({ id: transactionId, order_id: orderId }).first()) as Row | undefined);
  return (
    given ??
    ((await db('store_order_transactions')
      .where({ order_id: orderId })
      .whereIn('transaction_type', [...CHARGE_TYPES])
      .orderByRaw('case when status = ? then 0 else 1 end', [TRANSACTION_STATUS.succeeded])
      .orderBy('id', 'desc')
      .first()) as Row | undefined)
  );
}

async function customerRecords(db: Db, customerId: number | null): Promise<Pick<EmailRecords, 'customer' | 'user'>> {
  const customer =
    customerId === null
      ? undefined
      : ((await db('store_customers').where({ id: customerId }).first('email', 'first_name', 'last_name', 'user_id')) as Row | undefined);
  const userId = customer?.user_id;
  const user =
    userId === null || userId === undefined
      ? undefined
      : ((await db('users')
          .where({ id: Number(userId) })
          .first('display_name', 'email')) as Row | undefined);
  return {
    customer: customer ? { email: String(customer.email), first_name: String(customer.first_name ?? ''), last_name: String(customer.last_name ?? '') } : null,
    user: user ? { display_name: String(user.display_name ?? ''), email: String(user.email) } : null,
  };
}

async function orderRecords(db: Db, orderId: number, transactionId: number | undefined): Promise<EmailRecords | null> {
  const row = (await db('store_orders').where({ id: orderId }).first()) as OrderRow | undefined;
  if (!row) return null;
  const order = presentOrder(row);
  const [itemRows, addressRows, transaction, people] = await Promise.all([
    db('store_order_items').where({ order_id: orderId }).orderBy(['cart_index', 'id']) as Promise<Row[]>,
    db('store_order_addresses').where({ order_id: orderId }) as Promise<Row[]>,
    transactionRow(db, orderId, transactionId),
    customerRecords(db, order.customer_id),
  ]);
  return {
    order,
    items: itemRows.map(presentOrderItem),
    billing: await address(addressRows.find((a) => a.type === 'billing')),
    shipping: await address(addressRows.find((a) => a.type === 'shipping')),
    transaction: transaction ? presentTransaction(transaction) : null,
    subscription: null,
    ...people,
    // The store has no licenses yet: the license loop of an order email renders nothing.
    licenses: [],
  };
}

/** `renewed:<order id>` names the renewal order the email is about. */
const renewalOrderId = (eventKey: string) => /^renewed:(\d+)$/.exec(eventKey)?.[1];

async function subscriptionRecords(db: Db, job: SendEmailJob): Promise<EmailRecords | null> {
  const row = (await db('store_subscriptions').where({ id: job.object_id }).first()) as Row | undefined;
  if (!row) return null;
  const subscription = presentSubscription(row);
  const renewal = renewalOrderId(job.event_key);
  const orders = [renewal === undefined ? null : Number(renewal), subscription.parent_order_id].filter((id): id is number => id !== null);
  for (const orderId of orders) {
    const records = await orderRecords(db, orderId, job.transaction_id);
    if (records) return { ...records, subscription };
  }
  return {
    order: null,
    items: [],
    billing: null,
    shipping: null,
    transaction: null,
    subscription,
    ...(await customerRecords(db, subscription.customer_id)),
    licenses: [],
  };
}

/**
 * The data of the email a job sends, read through `db` (the caller's transaction, when it has one): an order with its
 * items, addresses, customer and transaction (the job's, or the latest charge); a subscription with its order (the
 * renewal order of a `renewed:<order id>` event, else its parent order). Null when the object no longer exists.
 */
export async function buildEmailData(ctx: Ctx, db: Db, job: SendEmailJob): Promise<EmailData | null> {
  const [settings, records] = await Promise.all([
    getStoreSettings(ctx.host, transactionOf(db)),
    job.object_type === 'order' ? orderRecords(db, job.object_id, job.transaction_id) : subscriptionRecords(db, job),
  ]);
  return records && composeEmailData(records, ctx.host.site, settings);
}
