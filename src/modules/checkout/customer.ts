/**
 * Who buys at checkout. A logged-in user buys as their own customer record (created from the user when missing); a
 * guest is matched by email or a new record is made. A record found by email is used for the order but never
 * changed and never linked to anyone: the email was only typed in, nothing proves it belongs to the shopper.
 */
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { insertedId, type AfterCommit } from '../../core/db';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import type { AddressRow } from '../customers/addresses';
import { customerIdOf } from '../customers/owner';
import { presentCustomer, type CustomerRow } from '../customers/presenter';
import type { AddressType, CustomerRecord } from '../customers/types';
import { addressValues, type CheckoutAddress, type CheckoutForm } from './form';

const CUSTOMERS = 'store_customers';
const ADDRESSES = 'store_customer_addresses';

type Db = Knex | Knex.Transaction;

export interface CheckoutCustomer {
  record: CustomerRecord;
  /** Made by this checkout. */
  created: boolean;
  /** The logged-in caller's own record: their addresses may be saved to it. */
  owned: boolean;
}

/** The logged-in caller's own customer record (linked, or claimable by a verified email), or null. */
export async function ownCustomerId(db: Db, ctx: Ctx): Promise<number | null> {
  return ctx.user ? customerIdOf(db, { user_id: ctx.user.id, email: ctx.user.email }) : null;
}

/** The caller's saved addresses among `ids` (ownership is part of the WHERE clause), by id. */
export async function savedAddresses(db: Db, customerId: number | null, ids: Array<number | undefined>): Promise<Map<number, AddressRow>> {
  const wanted = ids.filter((id): id is number => id !== undefined);
  if (customerId === null || !wanted.length) return new Map();
  const rows = (await db(ADDRESSES).where({ customer_id: customerId }).whereIn('id', wanted)) as AddressRow[];
  return new Map(rows.map((row) => [Number(row.id), row]));
}

async function readCustomer(trx: Knex.Transaction, where: Record<string, unknown>): Promise<CustomerRecord | null> {
  const row = (await trx(CUSTOMERS).where(where).first()) as CustomerRow | undefined;
  return row ? presentCustomer(row) : null;
}

/**
 * The order's customer, inside the order's transaction. A new record races with other checkouts of the same email or
 * user on the unique keys; the loser's transaction fails and the caller runs the checkout again, which then finds it.
 */
export async function resolveCustomer(trx: Knex.Transaction, ctx: Ctx, form: CheckoutForm, afterCommit: AfterCommit): Promise<CheckoutCustomer> {
  const ownId = await ownCustomerId(trx, ctx);
  const own = ownId === null ? null : await readCustomer(trx, { id: ownId });
  if (own) return { record: own, created: false, owned: true };
  const byEmail = await readCustomer(trx, { email: form.email });
  if (byEmail) return { record: byEmail, created: false, owned: false };

  const now = toTimestamp(ctx.clock.now());
  const { user } = ctx;
  const id = insertedId(
    await trx(CUSTOMERS).insert({
      user_id: user?.id ?? null,
      email: form.email,
      first_name: user?.first_name || form.first_name,
      last_name: user?.last_name || form.last_name,
      status: 'active',
      purchase_value: '{}',
      notes: '',
      uuid: crypto.randomUUID(),
      country: form.billing.country,
      city: form.billing.city,
      state: form.billing.state,
      postcode: form.billing.postcode,
      created_at: now,
      updated_at: now,
    }),
  );
  const record = (await readCustomer(trx, { id })) as CustomerRecord;
  await recordActivity(trx, ctx, { object_type: 'customer', object_id: id, title: 'Customer created at checkout', content: record.email }, afterCommit);
  afterCommit(() => ctx.hooks.doAction('store/customer/created', record));
  return { record, created: true, owned: user !== null };
}

function addressColumns(customerId: number, type: AddressType, address: CheckoutAddress, now: string): Record<string, unknown> {
  return {
    customer_id: customerId,
    type,
    is_primary: 1,
    primary_slot: type,
    status: 'active',
    label: '',
    ...addressValues(address, now),
    created_at: now,
  };
}

/**
 * A customer made by this checkout, or the caller's own record without a primary address of a type, keeps the
 * addresses typed in as its primary ones (a saved address the form named is already there). Another customer's
 * record (found by email) is left as it is.
 */
export async function rememberAddresses(trx: Knex.Transaction, customer: CheckoutCustomer, form: CheckoutForm, now: string): Promise<void> {
  if (!customer.created && !customer.owned) return;
  const byType: Array<[AddressType, CheckoutAddress | null]> = [
    ['billing', form.billing],
    ['shipping', form.shipping],
  ];
  const rows = byType
    .filter((entry): entry is [AddressType, CheckoutAddress] => entry[1] !== null && form.typed_in.includes(entry[0]))
    .map(([type, address]) => addressColumns(customer.record.id, type, address, now));
  // An address already primary for its type stays so: the unique primary slot turns the insert into a no-op.
  if (rows.length) await trx(ADDRESSES).insert(rows).onConflict(['customer_id', 'primary_slot']).ignore();
}
