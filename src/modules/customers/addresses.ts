import type { Knex } from 'knex';
import { normalizeAddressFields, validateAddressFields } from '../../core/address';
import { transaction, type Ctx } from '../../core/context';
import { insertedId, lockForUpdate, type AfterCommit } from '../../core/db';
import { fail, invalid, type FieldErrors } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { emitOrderEvent } from '../order-records/order-events';
import { presentAddress, presentAddresses, type AddressRow } from './address-presenter';
import type { Address, AddressType } from './types';

export { presentAddress, presentAddresses, type AddressRow };

const TABLE = 'store_customer_addresses';

/** What a new address is made of (the create-address body, without `order_id`). */
export interface AddressInput {
  type: AddressType;
  name: string;
  email: string;
  label?: string | null;
  company_name?: string | null;
  address_1: string;
  address_2?: string | null;
  city: string;
  state?: string | null;
  postcode?: string | null;
  country: string;
  phone?: string | null;
  status?: string;
  is_primary?: 0 | 1;
  meta?: Record<string, unknown>;
}

/** The fields of an address to change; `is_primary: 1` makes it the primary of its type. */
export type AddressPatch = Partial<AddressInput>;

export interface AddressWriteOptions {
  /** An order of the customer whose address of the same type follows this one when it is (or becomes) primary. */
  orderId?: number | null;
  /** The city may be empty whatever the country's rules (a billing address for digital goods). */
  cityOptional?: boolean;
}

export interface PrimaryState {
  id: number;
  is_primary: 0 | 1;
  updated_at: string;
}

type Db = Knex | Knex.Transaction;

// ---- reads ----

async function rowOf(db: Db, customerId: number, addressId: number): Promise<AddressRow | undefined> {
  // Ownership is part of the WHERE clause: an address of another customer is simply not found.
  return (await db(TABLE).where({ customer_id: customerId, id: addressId }).first()) as AddressRow | undefined;
}

async function ownedRow(db: Db, customerId: number, addressId: number): Promise<AddressRow> {
  const row = await rowOf(db, customerId, addressId);
  if (!row) throw fail('not_found', 'Address not found');
  return row;
}

/** 404 `Customer not found` unless the customer exists. */
export async function assertCustomerExists(db: Db, customerId: number): Promise<void> {
  if (!(await db('store_customers').where({ id: customerId }).first('id'))) throw fail('not_found', 'Customer not found');
}

/** A customer's addresses (of one type when given): the primary first, then by id. */
export async function listAddresses(db: Db, customerId: number, type?: AddressType): Promise<Address[]> {
  const query = db(TABLE).where({ customer_id: customerId });
  if (type) query.where({ type });
  const rows = (await query.orderBy([
    { column: 'is_primary', order: 'desc' },
    { column: 'id', order: 'asc' },
  ])) as AddressRow[];
  return presentAddresses(rows);
}

// ---- writes: one transaction each, retried when a concurrent writer wins the race ----

const text = (value: unknown) => (value === null || value === undefined ? '' : String(value).trim());

/** A duplicate-key or deadlock error: another transaction changed the same primary slot first; trying again is safe. */
function isRetryable(error: unknown): boolean {
  const code = String((error as { code?: unknown })?.code ?? '');
  return code === 'ER_DUP_ENTRY' || code === 'ER_LOCK_DEADLOCK' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_BUSY';
}

const ATTEMPTS = 5;

async function retrying<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetryable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.floor(Math.random() * 10)));
    }
  }
}

/**
 * Locks the customer (404 when missing) and, on MySQL, the customer's address rows, so concurrent primary changes
 * of one customer run one after the other. SQLite serialises writers anyway. The `primary_slot` unique key stays the
 * final guard.
 */
async function lockCustomer(trx: Knex.Transaction, customerId: number): Promise<void> {
  const customer = await lockForUpdate(trx('store_customers').where({ id: customerId }).select('id'), trx);
  if (!(customer as unknown[]).length) throw fail('not_found', 'Customer not found');
  await lockForUpdate(trx(TABLE).where({ customer_id: customerId }).select('id'), trx);
}

async function hasPrimary(trx: Knex.Transaction, customerId: number, type: AddressType, exceptId?: number): Promise<boolean> {
  const query = trx(TABLE).where({ customer_id: customerId, type, is_primary: 1 });
  if (exceptId) query.whereNot('id', exceptId);
  return !!(await query.first('id'));
}

/** Demotes every address of the type except `keepId`, freeing the primary slot. */
async function demoteOthers(trx: Knex.Transaction, customerId: number, type: AddressType, keepId: number | null, now: string): Promise<void> {
  const query = trx(TABLE)
    .where({ customer_id: customerId, type })
    .where((q) => q.where('is_primary', 1).orWhereNotNull('primary_slot'));
  if (keepId) query.whereNot('id', keepId);
  await query.update({ is_primary: 0, primary_slot: null, updated_at: now });
}

async function setPrimary(trx: Knex.Transaction, addressId: number, type: AddressType, now: string): Promise<void> {
  await trx(TABLE).where({ id: addressId }).update({ is_primary: 1, primary_slot: type, updated_at: now });
}

/** Makes the newest remaining address of the type primary (after the primary was deleted or moved); its id, or null. */
async function promoteNewest(trx: Knex.Transaction, customerId: number, type: AddressType, now: string, exceptId?: number): Promise<number | null> {
  const query = trx(TABLE).where({ customer_id: customerId, type });
  if (exceptId) query.whereNot('id', exceptId);
  const next = (await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first('id')) as { id: number | string } | undefined;
  if (!next) return null;
  await setPrimary(trx, Number(next.id), type, now);
  return Number(next.id);
}

/** 422 unless the order exists and belongs to the customer (checked in the WHERE clause). */
async function assertOrderOfCustomer(trx: Knex.Transaction, customerId: number, orderId: number): Promise<void> {
  if (!(await trx('store_orders').where({ id: orderId, customer_id: customerId }).first('id'))) {
    throw invalid('order_id', 'exists', 'The selected order id is invalid.');
  }
}

/** Creates or updates the order's address of the address's type from a (primary) customer address. */
export async function syncOrderAddress(trx: Knex.Transaction, orderId: number, row: AddressRow, now: string): Promise<void> {
  const values = {
    name: row.name,
    company_name: row.company_name,
    address_1: row.address_1,
    address_2: row.address_2,
    city: row.city,
    state: row.state,
    postcode: row.postcode,
    country: row.country,
    phone: row.phone,
    email: row.email,
    updated_at: now,
  };
  const existing = await trx('store_order_addresses').where({ order_id: orderId, type: row.type }).first('id');
  if (existing) await trx('store_order_addresses').where({ order_id: orderId, type: row.type }).update(values);
  else await trx('store_order_addresses').insert({ order_id: orderId, type: row.type, ...values, created_at: now });
}

function throwIfAny(errors: FieldErrors): void {
  const fields = Object.values(errors);
  if (fields.length) throw fail('validation_error', Object.values(fields[0])[0], { errors });
}

/** The stored columns an input sets (trimmed, email lower-cased, country/state/postcode in their stored form). */
async function columnsOf(input: AddressPatch, country = input.country): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const key of ['name', 'label', 'company_name', 'address_1', 'address_2', 'city', 'phone', 'status'] as const) {
    if (input[key] !== undefined) out[key] = text(input[key]);
  }
  if (input.email !== undefined) out.email = text(input.email).toLowerCase();
  if (input.type !== undefined) out.type = input.type;
  if (input.meta !== undefined) out.meta = JSON.stringify(input.meta ?? {});
  if (input.country !== undefined || input.state !== undefined || input.postcode !== undefined) {
    const normalized = await normalizeAddressFields({ country, state: input.state, postcode: input.postcode });
    if (input.country !== undefined) out.country = normalized.country;
    if (input.state !== undefined) out.state = normalized.state;
    if (input.postcode !== undefined) out.postcode = normalized.postcode;
  }
  return out;
}

async function logActivity(trx: Knex.Transaction, ctx: Ctx, customerId: number, title: string, address: Address, afterCommit: AfterCommit) {
  await recordActivity(trx, ctx, { object_type: 'customer', object_id: customerId, title, content: address.formatted_address.full_address }, afterCommit);
}

const typeName = (type: AddressType) => (type === 'billing' ? 'Billing' : 'Shipping');

/**
 * Adds an address to a customer. The country rules decide whether state and postcode are required and valid (422).
 * It becomes primary when `is_primary` is 1 (the customer's other addresses of the type are demoted) or when the
 * customer has no primary address of that type yet. With `orderId` and a primary address, the order's address of
 * that type is created or updated (the order must be the customer's). Fires `store/customer/address_created`, and
 * `store/customer/primary_address_changed` when the address became primary.
 */
export async function createAddress(ctx: Ctx, customerId: number, input: AddressInput, options: AddressWriteOptions = {}): Promise<Address> {
  throwIfAny(await validateAddressFields(input, '', { cityOptional: options.cityOptional }));
  const columns = await columnsOf({ status: 'active', ...input });
  return retrying(() =>
    transaction(ctx, async (trx, afterCommit) => {
      await lockCustomer(trx, customerId);
      if (options.orderId) await assertOrderOfCustomer(trx, customerId, options.orderId);
      const now = toTimestamp(ctx.clock.now());
      const primary = input.is_primary === 1 || !(await hasPrimary(trx, customerId, input.type));
      if (primary) await demoteOthers(trx, customerId, input.type, null, now);
      const id = insertedId(
        await trx(TABLE).insert({
          ...columns,
          meta: columns.meta ?? '{}',
          customer_id: customerId,
          is_primary: primary ? 1 : 0,
          primary_slot: primary ? input.type : null,
          created_at: now,
          updated_at: now,
        }),
      );
      const row = await ownedRow(trx, customerId, id);
      if (primary && options.orderId) {
        await syncOrderAddress(trx, options.orderId, row, now);
        await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [options.orderId] });
      }
      const address = await presentAddress(row);
      await logActivity(trx, ctx, customerId, `${typeName(address.type)} address added`, address, afterCommit);
      afterCommit(() => ctx.hooks.doAction('store/customer/address_created', address));
      if (primary) afterCommit(() => ctx.hooks.doAction('store/customer/primary_address_changed', address));
      return address;
    }),
  );
}

/**
 * Changes a customer's address (404 `Address not found` when it is not that customer's). Country, state, postcode and
 * city are checked against the country rules when any of them changes. `is_primary: 1` makes it the primary of its
 * type; unsetting the primary flag of the primary address is refused (make another address primary instead). Moving
 * an address to the other type takes it out of the old type's primary slot (the newest remaining address of the old
 * type is promoted) and makes it primary of the new type when that type has none. Fires
 * `store/customer/address_updated`, and `store/customer/primary_address_changed` for every address that became primary.
 */
export async function updateAddress(ctx: Ctx, customerId: number, addressId: number, patch: AddressPatch, options: AddressWriteOptions = {}): Promise<Address> {
  return retrying(() =>
    transaction(ctx, async (trx, afterCommit) => {
      await lockCustomer(trx, customerId);
      const before = await ownedRow(trx, customerId, addressId);
      const previous = await presentAddress(before);
      if (['country', 'state', 'postcode', 'city'].some((key) => patch[key as keyof AddressPatch] !== undefined)) {
        throwIfAny(
          await validateAddressFields({
            country: patch.country ?? previous.country,
            state: patch.state !== undefined ? patch.state : previous.state,
            postcode: patch.postcode !== undefined ? patch.postcode : previous.postcode,
            city: patch.city ?? previous.city,
          }),
        );
      }
      if (options.orderId) await assertOrderOfCustomer(trx, customerId, options.orderId);
      const now = toTimestamp(ctx.clock.now());
      const oldType = previous.type;
      const newType = patch.type ?? oldType;
      const wasPrimary = previous.is_primary === 1;
      let primary = wasPrimary;
      let promoted: number | null = null;
      if (newType === oldType) {
        if (patch.is_primary === 0 && wasPrimary) {
          throw invalid('is_primary', 'primary', 'The primary address cannot be unset; make another address primary instead.');
        }
        if (patch.is_primary === 1 && !wasPrimary) {
          primary = true;
          await demoteOthers(trx, customerId, newType, addressId, now);
        }
      } else {
        primary = patch.is_primary === 1 || !(await hasPrimary(trx, customerId, newType, addressId));
        if (wasPrimary) await trx(TABLE).where({ id: addressId }).update({ is_primary: 0, primary_slot: null });
        if (primary) await demoteOthers(trx, customerId, newType, addressId, now);
        if (wasPrimary) promoted = await promoteNewest(trx, customerId, oldType, now, addressId);
      }
      const columns = await columnsOf({ ...patch, is_primary: undefined }, patch.country ?? previous.country);
      await trx(TABLE)
        .where({ customer_id: customerId, id: addressId })
        .update({ ...columns, is_primary: primary ? 1 : 0, primary_slot: primary ? newType : null, updated_at: now });
      const row = await ownedRow(trx, customerId, addressId);
      if (primary && options.orderId) {
        await syncOrderAddress(trx, options.orderId, row, now);
        await emitOrderEvent(ctx, trx, { type: 'changed', order_ids: [options.orderId] });
      }
      const address = await presentAddress(row);
      const promotedAddress = promoted ? await presentAddress(await ownedRow(trx, customerId, promoted)) : null;
      await logActivity(trx, ctx, customerId, `${typeName(address.type)} address updated`, address, afterCommit);
      afterCommit(() => ctx.hooks.doAction('store/customer/address_updated', address, previous));
      if (primary && (!wasPrimary || newType !== oldType)) afterCommit(() => ctx.hooks.doAction('store/customer/primary_address_changed', address));
      if (promotedAddress) afterCommit(() => ctx.hooks.doAction('store/customer/primary_address_changed', promotedAddress));
      return address;
    }),
  );
}

/**
 * Deletes a customer's address (404 when it is not that customer's). Deleting the primary address promotes the
 * newest remaining address of that type. Fires `store/customer/address_deleted` (and `primary_address_changed` for
 * the promoted address). Answers the deleted address.
 */
export async function deleteAddress(ctx: Ctx, customerId: number, addressId: number): Promise<Address> {
  return retrying(() =>
    transaction(ctx, async (trx, afterCommit) => {
      await lockCustomer(trx, customerId);
      const address = await presentAddress(await ownedRow(trx, customerId, addressId));
      await trx(TABLE).where({ customer_id: customerId, id: addressId }).delete();
      const now = toTimestamp(ctx.clock.now());
      const promoted = address.is_primary ? await promoteNewest(trx, customerId, address.type, now) : null;
      const promotedAddress = promoted ? await presentAddress(await ownedRow(trx, customerId, promoted)) : null;
      await logActivity(trx, ctx, customerId, `${typeName(address.type)} address deleted`, address, afterCommit);
      afterCommit(() => ctx.hooks.doAction('store/customer/address_deleted', address));
      if (promotedAddress) afterCommit(() => ctx.hooks.doAction('store/customer/primary_address_changed', promotedAddress));
      return address;
    }),
  );
}

/**
 * Makes a customer's address the primary of its type, demoting the others, in one transaction (404 when it is not
 * that customer's). With `type`, the address must be of that type (422). Already primary: nothing changes.
 */
export async function makePrimary(ctx: Ctx, customerId: number, addressId: number, options: { type?: AddressType } = {}): Promise<PrimaryState> {
  return retrying(() =>
    transaction(ctx, async (trx, afterCommit) => {
      await lockCustomer(trx, customerId);
      const row = await ownedRow(trx, customerId, addressId);
      if (options.type && options.type !== row.type) throw invalid('address.type', 'in', 'The address type does not match the address.');
      if (Number(row.is_primary) === 1) return { id: Number(row.id), is_primary: 1 as const, updated_at: row.updated_at };
      const now = toTimestamp(ctx.clock.now());
      await demoteOthers(trx, customerId, row.type, addressId, now);
      await setPrimary(trx, addressId, row.type, now);
      const address = await presentAddress(await ownedRow(trx, customerId, addressId));
      await logActivity(trx, ctx, customerId, `Primary ${row.type} address changed`, address, afterCommit);
      afterCommit(() => ctx.hooks.doAction('store/customer/primary_address_changed', address));
      return { id: address.id, is_primary: address.is_primary, updated_at: address.updated_at };
    }),
  );
}
