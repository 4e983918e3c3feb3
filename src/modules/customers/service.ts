import crypto from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import countries from 'i18n-iso-countries';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { insertedId } from '../../core/db';
import { fail, invalid, type FieldErrors } from '../../core/errors';
import { runList, type ListSpec } from '../../core/list';
import { TotalCache, type Page } from '../../core/page';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { labelsFor, syncLabels } from '../labels/service';
import type { Label } from '../labels/types';
import { ordersByCustomer } from '../order-records/by-customer';
import { isUniqueViolation } from '../products/validation';
import { getStoreSettings } from '../settings/store-settings';
import type { NameMode } from '../settings/types';
import { presentAddresses, type AddressRow } from './addresses';
import { CUSTOMER_SORTABLE, customerListFilter } from './list-filters';
import { customerIdOf, linkBlocked, recordAdminLink } from './owner';
import { pick, presentAdmin, presentCustomer, SELECTABLE_COLUMNS, type AdminCustomer, type CustomerRow } from './presenter';
import type { CustomerBody, CustomerListQuery, CustomerUpdateBody, PortalCustomerBody } from './schemas';
import type { Address, AddressType, CustomerRecord, CustomerStatus } from './types';
import { createHostUser, customerOfUser, linkableUser } from './users-link';

const CUSTOMERS = 'store_customers';

export const customerNotFound = () => fail('not_found', 'Customer not found');
export const customerExists = () => fail('invalid_state', 'Customer already exists.', { status: 400, data: { email: { unique: 'Customer already exists.' } } });

export async function findCustomerRow(db: Knex | Knex.Transaction, id: number): Promise<CustomerRow | undefined> {
  return (await db(CUSTOMERS).where({ id }).first()) as CustomerRow | undefined;
}

/** The customer record; 404 `Customer not found` when there is none. */
export async function findCustomer(db: Knex | Knex.Transaction, id: number): Promise<CustomerRecord> {
  const row = await findCustomerRow(db, id);
  if (!row) throw customerNotFound();
  return presentCustomer(row);
}

/* ------------------------------------------------------------------ relations */

/** The addresses of many customers of one type, primary first: customer id → addresses. */
export async function addressesOf(db: Knex | Knex.Transaction, customerIds: number[], type: AddressType): Promise<Map<number, Address[]>> {
  const out = new Map<number, Address[]>(customerIds.map((id) => [id, []]));
  if (!customerIds.length) return out;
  const rows = (await db('store_customer_addresses')
    .whereIn('customer_id', customerIds)
    .where({ type })
    .orderBy([{ column: 'customer_id' }, { column: 'is_primary', order: 'desc' }, { column: 'id', order: 'asc' }])) as AddressRow[];
  const presented = await presentAddresses(rows);
  for (const address of presented) out.get(address.customer_id)?.push(address);
  return out;
}

type Relations = 'orders' | 'labels' | 'billing_address' | 'shipping_address';

/** Loads the requested relations of a page of customers, one query per relation (no N+1); the result adds them to a customer. */
async function loadRelations(
  db: Knex,
  ids: number[],
  wanted: readonly Relations[],
): Promise<<T extends { id: number }>(customer: T) => T & Record<string, unknown>> {
  const has = (r: Relations) => wanted.includes(r);
  const [orders, labels, billing, shipping] = await Promise.all([
    has('orders') ? ordersByCustomer(db, ids) : null,
    has('labels') ? labelsFor(db, 'customer', ids) : null,
    has('billing_address') ? addressesOf(db, ids, 'billing') : null,
    has('shipping_address') ? addressesOf(db, ids, 'shipping') : null,
  ]);
  return (customer) => {
    const out: Record<string, unknown> = customer;
    if (orders) out.orders = orders.get(customer.id) ?? [];
    if (labels) out.labels = labels.get(customer.id) ?? [];
    if (billing) out.billing_address = billing.get(customer.id) ?? [];
    if (shipping) out.shipping_address = shipping.get(customer.id) ?? [];
    return customer as typeof customer & Record<string, unknown>;
  };
}

/* ------------------------------------------------------------------ list */

/** `select=id,email` / `select[]=email`: allowlisted columns (id always comes along); 422 naming unknown ones. */
function selectedColumns(select: string[] | undefined): string[] | null {
  if (!select) return null;
  const columns = [
    ...new Set(
      select
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (!columns.length) return null;
  const unknown = columns.filter((c) => !(SELECTABLE_COLUMNS as readonly string[]).includes(c));
  if (unknown.length) throw invalid('select', 'in', `The select field names unknown columns: ${unknown.join(', ')}.`);
  return columns.includes('id') ? columns : ['id', ...columns];
}

/** The unfiltered customer count per database, kept 5 s (see TotalCache). */
const totals = new WeakMap<Knex, TotalCache>();

function totalOf(ctx: Ctx): TotalCache {
  let cache = totals.get(ctx.db);
  if (!cache) totals.set(ctx.db, (cache = new TotalCache(5000)));
  return cache;
}

/** Changes to the number of customers made by this process (every create and delete fires its hook). */
const customerWrites = (ctx: Ctx) => ctx.hooks.did('store/customer/created') + ctx.hooks.did('store/customer/deleted');

export async function listCustomers(ctx: Ctx, input: Static<typeof CustomerListQuery>): Promise<Page<Record<string, unknown>>> {
  const columns = selectedColumns(input.select);
  const filter = customerListFilter(ctx.db, input, { zone: ctx.tz, now: ctx.clock.now() });
  const query = ctx.db(`${CUSTOMERS} as c`).select('c.*');
  // With `include_ids` the filters form one group, so those records are added whatever the filters say. Without
  // it the conditions stay flat: an unfiltered list then counts with SQLite's O(1) `count(*)`.
  if (filter.narrowed && input.include_ids?.length) query.where((q) => filter.apply(q)).orWhereIn('c.id', input.include_ids);
  else filter.apply(query);
  const spec: ListSpec = { limits: { min: 1, max: 199, default: 10 }, sortable: CUSTOMER_SORTABLE, defaultSort: 'id' };
  const total = filter.narrowed ? undefined : (count: () => Promise<number>) => totalOf(ctx).get(customerWrites(ctx), ctx.clock.now().getTime(), count);
  const page = await runList<CustomerRow>(ctx, query, { ...input, search: undefined }, spec, 'c.id', total);
  const records = page.data.map(presentCustomer);
  const related = await loadRelations(
    ctx.db,
    records.map((c) => c.id),
    input.with ?? [],
  );
  const data = records.map((c) => related(columns ? { ...pick(c, columns), id: c.id } : presentAdmin(ctx.host, c)));
  return { ...page, data };
}

/** Labels of one customer as the admin answers show them. */
async function labelFields(db: Knex | Knex.Transaction, id: number): Promise<{ selected_labels: number[]; labels: Label[] }> {
  const labels = (await labelsFor(db, 'customer', [id])).get(id) ?? [];
  return { selected_labels: labels.map((l) => l.id), labels };
}

/* ------------------------------------------------------------------ create / update */

type CustomerInput = Static<typeof CustomerBody>;
type CustomerUpdateInput = Static<typeof CustomerUpdateBody>;

interface ResolvedFields {
  email: string;
  first_name: string;
  last_name: string;
  city?: string;
  state?: string;
  postcode?: string;
  country?: string;
  notes?: string;
  status?: CustomerStatus;
  aov?: number;
}

function throwIfAny(errors: FieldErrors): void {
  const fields = Object.keys(errors);
  if (fields.length) throw fail('validation_error', Object.values(errors[fields[0]])[0], { errors });
}

/** The `email` format of ajv-formats. */
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

/**
 * The stored values of a create or update body: names by the store's name mode (full-name mode splits `full_name`
 * at the first space), the email trimmed and lower-cased, the country an upper-cased ISO code.
 */
export function resolveFields(body: Static<typeof PortalCustomerBody> | CustomerInput, mode: NameMode): ResolvedFields {
  const errors: FieldErrors = {};
  let first_name = '';
  let last_name = '';
  if (mode === 'full') {
    const full = (body.full_name ?? '').trim().replace(/\s+/g, ' ');
    if (!full) errors.full_name = { required: 'The full name field is required.' };
    const space = full.indexOf(' ');
    first_name = space === -1 ? full : full.slice(0, space);
    last_name = space === -1 ? '' : full.slice(space + 1);
  } else {
    first_name = (body.first_name ?? '').trim();
    last_name = (body.last_name ?? '').trim();
    if (!first_name) errors.first_name = { required: 'The first name field is required.' };
  }
  const email = body.email.trim().toLowerCase();
  if (!email) errors.email = { required: 'The email field is required.' };
  else if (!EMAIL.test(email)) errors.email = { email: 'The email field must be a valid email address.' };
  const country = body.country?.trim().toUpperCase();
  if (country && !(/^[A-Z]{2}$/.test(country) && countries.isValid(country))) {
    errors.country = { country: 'The country field must be a valid ISO 3166-1 alpha-2 code.' };
  }
  throwIfAny(errors);
  const fields: ResolvedFields = { email, first_name, last_name };
  for (const key of ['city', 'state', 'postcode'] as const) if (body[key] !== undefined) fields[key] = body[key]!.trim();
  if (country !== undefined) fields.country = country;
  if (body.notes !== undefined) fields.notes = body.notes;
  const admin = body as CustomerInput;
  if (admin.status !== undefined) fields.status = admin.status;
  if (admin.aov !== undefined) fields.aov = Number(admin.aov);
  return fields;
}

const wantsHostUser = (value: unknown) => value === true || (typeof value === 'string' && ['yes', 'true', '1', 'on'].includes(value.toLowerCase()));

async function assertEmailFree(db: Knex | Knex.Transaction, email: string, exceptId?: number): Promise<void> {
  const query = db(CUSTOMERS).where({ email });
  if (exceptId !== undefined) query.whereNot({ id: exceptId });
  if (await query.first('id')) throw customerExists();
}

/**
 * Which host user a new or updated customer is linked to: `user_id` when sent (it must exist and be free), else the
 * host user with the customer's email when that user is free, has verified the email and was not detached from this
 * customer by an administrator, else a new host user when `wp_user` is `yes` (verified: the administrator vouches for
 * the address).
 */
async function resolveUser(
  ctx: Ctx,
  body: CustomerInput & { username?: string },
  fields: ResolvedFields,
  current: CustomerRecord | null,
): Promise<number | null | undefined> {
  const exceptId = current?.id ?? null;
  if (body.user_id !== undefined && body.user_id !== null) {
    const user = await linkableUser(ctx, Number(body.user_id), exceptId);
    return user.id;
  }
  if (current?.user_id) return undefined; // keeps the linked user
  const byEmail = await ctx.host.users.findByEmail(fields.email);
  if (byEmail) {
    if (!byEmail.email_verified_at || (exceptId !== null && (await linkBlocked(ctx.db, exceptId, byEmail.id)))) {
      if (wantsHostUser(body.wp_user)) throw unlinkableByEmail();
      return undefined;
    }
    const linked = await customerOfUser(ctx.db, byEmail.id);
    if (linked === null || linked === exceptId) return byEmail.id;
    if (wantsHostUser(body.wp_user)) throw invalid('wp_user', 'unique', 'The user account with this email is already linked to another customer.');
    return undefined;
  }
  if (!wantsHostUser(body.wp_user)) return undefined;
  const user = await createHostUser(ctx, {
    email: fields.email,
    first_name: fields.first_name,
    last_name: fields.last_name,
    url: body.user_url || undefined,
    login: body.username,
    email_verified: true,
  });
  return user.id;
}

const unlinkableByEmail = () =>
  invalid('wp_user', 'unique', 'The user account with this email has not verified it or was detached from this customer: attach it by user_id.');

function uniqueFailure(error: unknown): never {
  if (isUniqueViolation(error, CUSTOMERS, 'email')) throw customerExists();
  if (isUniqueViolation(error, CUSTOMERS, 'user_id')) throw invalid('user_id', 'unique', 'This user is already linked to another customer.');
  throw error;
}

export async function createCustomer(ctx: Ctx, body: CustomerInput): Promise<AdminCustomer> {
  const { name_mode } = await getStoreSettings(ctx.host);
  const fields = resolveFields(body, name_mode);
  await assertEmailFree(ctx.db, fields.email);
  const userId = (await resolveUser(ctx, body, fields, null)) ?? null;
  const now = toTimestamp(ctx.clock.now());
  try {
    const customer = await transaction(ctx, async (trx, afterCommit) => {
      const id = insertedId(
        await trx(CUSTOMERS).insert({
          city: '',
          state: '',
          postcode: '',
          country: '',
          notes: '',
          status: 'active',
          ...fields,
          user_id: userId,
          purchase_value: '{}',
          uuid: crypto.randomUUID(),
          created_at: now,
          updated_at: now,
        }),
      );
      const created = await findCustomer(trx, id);
      await recordActivity(
        trx,
        ctx,
        { object_type: 'customer', object_id: id, title: 'Customer created', content: created.email, status: 'success' },
        afterCommit,
      );
      afterCommit(() => ctx.hooks.doAction('store/customer/created', created));
      return created;
    });
    return Object.assign(presentAdmin(ctx.host, customer), { selected_labels: [], labels: [] });
  } catch (error) {
    uniqueFailure(error);
  }
}

/** What changed, for the activity log. */
function changedFields(before: CustomerRecord, after: CustomerRecord): string[] {
  const keys = ['email', 'first_name', 'last_name', 'status', 'city', 'state', 'postcode', 'country', 'notes', 'aov', 'user_id'] as const;
  return keys.filter((k) => before[k] !== after[k]);
}

export async function updateCustomer(ctx: Ctx, id: number, body: CustomerUpdateInput): Promise<AdminCustomer> {
  const { name_mode } = await getStoreSettings(ctx.host);
  const current = await findCustomer(ctx.db, id);
  const fields = resolveFields(body, name_mode);
  await assertEmailFree(ctx.db, fields.email, id);
  const newUserId = await resolveUser(ctx, body, fields, current);
  const userId = newUserId ?? current.user_id;
  // The linked user's email follows the customer's: it must not be another user's.
  if (userId !== null) {
    const holder = await ctx.host.users.findByEmail(fields.email);
    if (holder && holder.id !== userId) throw invalid('email', 'unique', 'The email is already used by another user account.');
  }
  const customer = await saveChanges(ctx, id, { ...fields, user_id: userId });
  if (userId !== null) {
    await updateHostUser(ctx, userId, {
      first_name: customer.first_name,
      last_name: customer.last_name,
      email: customer.email,
      ...(body.display_name?.trim() ? { display_name: body.display_name.trim() } : {}),
      ...(body.user_nicename ? { nicename: body.user_nicename } : {}),
      ...(body.user_url !== undefined ? { url: body.user_url } : {}),
    });
  }
  return Object.assign(presentAdmin(ctx.host, customer), await labelFields(ctx.db, id));
}

/** Writes a customer's changes in one transaction: activity, `updated` and (when it changed) `status_changed` after commit. */
async function saveChanges(ctx: Ctx, id: number, changes: Partial<ResolvedFields> & { user_id?: number | null }): Promise<CustomerRecord> {
  try {
    return await transaction(ctx, async (trx, afterCommit) => {
      const previous = await findCustomer(trx, id);
      const now = toTimestamp(ctx.clock.now());
      await trx(CUSTOMERS)
        .where({ id })
        .update({ ...changes, updated_at: now });
      const customer = await findCustomer(trx, id);
      if (previous.user_id !== customer.user_id) await recordAdminLink(trx, id, previous.user_id, customer.user_id, now);
      const changed = changedFields(previous, customer);
      await recordActivity(
        trx,
        ctx,
        {
          object_type: 'customer',
          object_id: id,
          title: 'Customer updated',
          content: changed.length ? `Changed: ${changed.join(', ')}.` : 'No field changed.',
        },
        afterCommit,
      );
      afterCommit(() => ctx.hooks.doAction('store/customer/updated', customer, previous));
      if (previous.status !== customer.status) afterCommit(() => ctx.hooks.doAction('store/customer/status_changed', customer, previous.status));
      return customer;
    });
  } catch (error) {
    uniqueFailure(error);
  }
}

/** Updates the linked host user's profile after the customer is saved; a failure is logged, the customer stays saved. */
async function updateHostUser(ctx: Ctx, userId: number, patch: Parameters<Ctx['host']['users']['update']>[1]): Promise<void> {
  try {
    await ctx.host.users.update(userId, patch);
  } catch (error) {
    ctx.host.logger.error({ err: error, userId }, 'could not update the linked user of a customer');
  }
}

/** `PUT /customers/{customerId}/additional-info`: the customer's labels become exactly `labels`. */
export async function updateAdditionalInfo(ctx: Ctx, id: number, labels: number[]): Promise<AdminCustomer> {
  const customer = await transaction(ctx, async (trx, afterCommit) => {
    const customer = await findCustomer(trx, id);
    const before = (await labelsFor(trx, 'customer', [id])).get(id)!.map((l) => l.id);
    const after = await syncLabels(trx, ctx, 'customer', id, labels);
    const same = before.length === after.length && before.every((l) => after.includes(l));
    if (!same) {
      await recordActivity(
        trx,
        ctx,
        { object_type: 'customer', object_id: id, title: 'Labels updated', content: after.length ? `Labels: ${after.join(', ')}.` : 'All labels removed.' },
        afterCommit,
      );
      afterCommit(() => ctx.hooks.doAction('store/customer/updated', customer, customer));
    }
    return customer;
  });
  return Object.assign(presentAdmin(ctx.host, customer), await labelFields(ctx.db, id));
}

/* ------------------------------------------------------------------ portal */

/** The portal caller's own customer `id`, or undefined: ownership is part of the query. */
export async function ownCustomerRow(ctx: Ctx, id: number, ownId: number | null): Promise<CustomerRow | undefined> {
  if (ownId === null) return undefined;
  return (await ctx.db(CUSTOMERS).where({ id }).andWhere({ id: ownId }).first()) as CustomerRow | undefined;
}

/** The caller's own customer row; 403 with the spec's message for anyone else's (or for a caller with none). */
async function ownRowOr403(ctx: Ctx, id: number, message: string): Promise<CustomerRow> {
  const row = await ownCustomerRow(ctx, id, await customerIdOf(ctx.db, ctx.scope!));
  if (!row) throw fail('rest_forbidden', message);
  return row;
}

/**
 * Portal update of the caller's own customer record. `status` and `notes` are accepted (the spec lists them) but a
 * customer cannot change them: they are the store's. The linked host user's first and last name follow.
 */
export async function portalUpdateCustomer(ctx: Ctx, customerId: number, body: Static<typeof PortalCustomerBody>): Promise<CustomerRecord> {
  const row = await ownRowOr403(ctx, customerId, 'You are not authorized to update this customer');
  const { name_mode } = await getStoreSettings(ctx.host);
  const fields = resolveFields(body, name_mode);
  delete fields.status;
  delete fields.notes;
  const id = Number(row.id);
  if (await ctx.db(CUSTOMERS).where({ email: fields.email }).whereNot({ id }).first('id')) {
    throw invalid('email', 'unique', 'The email has already been taken.');
  }
  let customer: CustomerRecord;
  try {
    customer = await saveChanges(ctx, id, fields);
  } catch (error) {
    if (error instanceof Error && 'status' in error && (error as { status: number }).status === 400) {
      throw invalid('email', 'unique', 'The email has already been taken.');
    }
    throw error;
  }
  if (customer.user_id !== null) await updateHostUser(ctx, customer.user_id, { first_name: customer.first_name, last_name: customer.last_name });
  return customer;
}
