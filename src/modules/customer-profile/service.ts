import crypto from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { transaction, type Ctx, type OwnerScope } from '../../core/context';
import { insertedId } from '../../core/db';
import { fail, invalid } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import type { HostUser } from '../../host/contract';
import { recordActivity } from '../activities/service';
import { listAddresses } from '../customers/addresses';
import { customerIdOf, emailNotClaimable, ownedBy } from '../customers/owner';
import { presentCustomer, type CustomerRow } from '../customers/presenter';
import type { Address } from '../customers/types';
import { isUniqueViolation } from '../products/validation';
import { presentDashboardOrder, presentOrderItem, type DashboardOrder, type DashboardOrderItem, type OrderItemRow, type OrderSummaryRow } from './presenter';
import type { ProfileUpdateBody } from './schemas';

type Db = Knex | Knex.Transaction;

/** How many orders the dashboard shows. */
export const DASHBOARD_ORDERS = 5;

/** The caller's ownership scope; the profile routes run under CustomerFrontendPolicy, which always sets it. */
export function scopeOf(ctx: Ctx): OwnerScope & { user: HostUser } {
  if (!ctx.scope || !ctx.user) throw fail('rest_forbidden', 'You are not logged in', { status: 401 });
  return { ...ctx.scope, user: ctx.user };
}

async function findCustomer(db: Db, id: number): Promise<CustomerRow> {
  const row = (await db('store_customers').where({ id }).first()) as CustomerRow | undefined;
  if (!row) throw fail('not_found', 'Customer not found');
  return row;
}

/* ------------------------------------------------------------------ dashboard */

/**
 * The caller's 5 most recent orders with their items and renewal counts, in three queries whatever the number of
 * orders. Renewal orders are not listed on their own: they are counted on their parent (`renewals_count`).
 */
export async function recentOrders(db: Db, customerId: number | null): Promise<DashboardOrder[]> {
  const rows = (await ownedBy(db('store_orders'), customerId)
    .whereNot('type', 'renewal')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(DASHBOARD_ORDERS)
    .select('id', 'invoice_no', 'total_amount', 'uuid', 'type', 'status', 'created_at')) as OrderSummaryRow[];
  if (!rows.length) return [];
  const ids = rows.map((row) => Number(row.id));

  const items = new Map<number, DashboardOrderItem[]>(ids.map((id) => [id, []]));
  const itemRows = (await db('store_order_items')
    .whereIn('order_id', ids)
    .orderBy(['order_id', 'cart_index', 'id'])
    .select('id', 'order_id', 'post_title', 'title', 'quantity', 'payment_type', 'line_meta')) as OrderItemRow[];
  for (const row of itemRows) items.get(Number(row.order_id))?.push(presentOrderItem(row));

  const renewals = new Map<number, number>();
  const counts = (await db('store_orders')
    .whereIn('parent_id', ids)
    .where('type', 'renewal')
    .groupBy('parent_id')
    .select('parent_id')
    .count({ count: '*' })) as Array<{ parent_id: number | string; count: number | string }>;
  for (const row of counts) renewals.set(Number(row.parent_id), Number(row.count));

  return rows.map((row) => presentDashboardOrder(row, renewals.get(Number(row.id)) ?? 0, items.get(Number(row.id)) ?? []));
}

export interface SectionsParts {
  before_orders_table: string;
  after_orders_table: string;
}

/** `GET /customer-profile/`: recent orders, and the HTML blocks extensions put around the orders table. */
export async function dashboard(ctx: Ctx): Promise<{ orders: DashboardOrder[]; sections_parts: SectionsParts }> {
  const scope = scopeOf(ctx);
  const customerId = await customerIdOf(ctx.db, scope);
  const orders = await recentOrders(ctx.db, customerId);
  const parts = await ctx.hooks.applyFiltersAsync(
    'store/customer_profile/sections_parts',
    { before_orders_table: '', after_orders_table: '' },
    { customer_id: customerId, user_id: scope.user_id },
  );
  const html = (value: unknown) => (typeof value === 'string' ? value : '');
  return { orders, sections_parts: { before_orders_table: html(parts?.before_orders_table), after_orders_table: html(parts?.after_orders_table) } };
}

/* ------------------------------------------------------------------ profile */

export interface ProfileData {
  first_name: string;
  last_name: string;
  email: string;
  billing_address: Address[];
  shipping_address: Address[];
}

export interface NotACustomerProfile {
  first_name: string;
  last_name: string;
  user_login: string;
  user_email: string;
  email: string;
  user_nicename: string;
  display_name: string;
  billing_address: [];
  shipping_address: [];
  not_a_customer: true;
}

/** `GET /customer-profile/profile`: the caller's names, email and addresses; the host user's account when no customer record exists. */
export async function profile(ctx: Ctx): Promise<ProfileData | NotACustomerProfile> {
  const scope = scopeOf(ctx);
  const customerId = await customerIdOf(ctx.db, scope);
  if (customerId === null) {
    const { user } = scope;
    return {
      first_name: user.first_name,
      last_name: user.last_name,
      user_login: user.login,
      user_email: user.email,
      email: user.email,
      user_nicename: user.nicename,
      display_name: user.display_name,
      billing_address: [],
      shipping_address: [],
      not_a_customer: true,
    };
  }
  const customer = await findCustomer(ctx.db, customerId);
  const addresses = await listAddresses(ctx.db, customerId);
  return {
    first_name: customer.first_name,
    last_name: customer.last_name,
    email: customer.email,
    billing_address: addresses.filter((a: Address) => a.type === 'billing'),
    shipping_address: addresses.filter((a: Address) => a.type === 'shipping'),
  };
}

/* ------------------------------------------------------------------ update */

const EMAIL_TAKEN = 'The email has already been taken.';

async function assertEmailFree(ctx: Ctx, email: string, customerId: number, userId: number): Promise<void> {
  const customer = await ctx.db('store_customers').where({ email }).whereNot({ id: customerId }).first('id');
  const user = await ctx.host.users.findByEmail(email);
  if (customer || (user && user.id !== userId)) throw invalid('email', 'unique', EMAIL_TAKEN);
}

/** Checks the password-change fields; returns the new password, or undefined when none is being set. */
async function passwordChange(ctx: Ctx, user: HostUser, input: Static<typeof ProfileUpdateBody>): Promise<string | undefined> {
  const next = input.new_password ?? '';
  if (!next) return undefined;
  if (!input.current_password) throw invalid('current_password', 'required', 'The current password field is required.');
  if (next.length < 8) throw invalid('new_password', 'min', 'The new password field must be at least 8 characters.');
  if (input.confirm_new_password !== next) throw invalid('confirm_new_password', 'same', 'The confirm new password field must match new password.');
  const verified = await ctx.host.users.verifyPassword(user.login, input.current_password);
  if (!verified || verified.id !== user.id) throw invalid('current_password', 'current_password', 'The current password is incorrect.');
  return next;
}

/**
 * `POST /customer-profile/update`: the caller's customer record and host user (first name, last name, display name,
 * email, and the password when a change is asked for). Everything is checked before anything is written. The host user
 * lives outside the store's transaction, so a host write refused after the customer was saved (an email taken in the
 * meantime) puts the customer back as it was.
 */
export async function updateProfile(ctx: Ctx, input: Static<typeof ProfileUpdateBody>): Promise<void> {
  const scope = scopeOf(ctx);
  const customerId = await customerIdOf(ctx.db, scope);
  if (customerId === null) throw fail('not_found', 'Customer not found');
  const previousRow = await findCustomer(ctx.db, customerId);
  const email = input.email.trim().toLowerCase();
  const firstName = (input.first_name ?? previousRow.first_name).trim();
  const lastName = (input.last_name ?? previousRow.last_name).trim();

  await assertEmailFree(ctx, email, customerId, scope.user.id);
  const password = await passwordChange(ctx, scope.user, input);

  const changes = { email, first_name: firstName, last_name: lastName };
  const changed = (Object.keys(changes) as Array<keyof typeof changes>).filter((key) => previousRow[key] !== changes[key]);
  const writeCustomer = (values: typeof changes, updatedAt: string) =>
    ctx
      .db('store_customers')
      .where({ id: customerId })
      .update({ ...values, updated_at: updatedAt });

  if (changed.length) {
    try {
      await writeCustomer(changes, toTimestamp(ctx.clock.now()));
    } catch (error) {
      if (isUniqueViolation(error, 'store_customers', 'email')) throw invalid('email', 'unique', EMAIL_TAKEN);
      throw error;
    }
  }

  const displayName = [firstName, lastName].filter(Boolean).join(' ') || scope.user.display_name;
  try {
    await ctx.host.users.update(scope.user.id, {
      first_name: firstName,
      last_name: lastName,
      display_name: displayName,
      email,
      ...(password ? { password } : {}),
    });
  } catch (error) {
    const { email: oldEmail, first_name, last_name } = previousRow;
    if (changed.length) await writeCustomer({ email: oldEmail, first_name, last_name }, previousRow.updated_at);
    if ((error as { code?: string }).code === 'existing_user_email') throw invalid('email', 'unique', EMAIL_TAKEN);
    throw error;
  }
  if (password) await ctx.session.endOthers(scope.user.id);

  const customer = presentCustomer(await findCustomer(ctx.db, customerId));
  const content = [...changed, ...(password ? ['password'] : [])].join(', ');
  await transaction(ctx, async (trx, afterCommit) => {
    if (content)
      await recordActivity(trx, ctx, { object_type: 'customer', object_id: customerId, title: 'Profile updated by the customer', content }, afterCommit);
    if (changed.length) afterCommit(() => ctx.hooks.doAction('store/customer/updated', customer, presentCustomer(previousRow)));
  });
}

/* ------------------------------------------------------------------ addresses */

/**
 * The caller's customer record, created from the host user (email, first and last name) when there is none: any
 * logged-in user may keep addresses, as a shopper of a WordPress store can. Fires `store/customer/created` after the
 * commit. Two first requests at once: the loser of the unique keys (user_id, email) reads the winner's record.
 */
export async function ensureCustomer(ctx: Ctx): Promise<number> {
  const scope = scopeOf(ctx);
  const existing = await customerIdOf(ctx.db, scope);
  if (existing !== null) return existing;
  try {
    return await transaction(ctx, async (trx, afterCommit) => {
      const now = toTimestamp(ctx.clock.now());
      const { user } = scope;
      const customerId = insertedId(
        await trx('store_customers').insert({
          user_id: user.id,
          email: user.email.toLowerCase(),
          first_name: user.first_name,
          last_name: user.last_name,
          status: 'active',
          purchase_value: '{}',
          notes: '',
          uuid: crypto.randomUUID(),
          created_at: now,
          updated_at: now,
        }),
      );
      await recordActivity(trx, ctx, { object_type: 'customer', object_id: customerId, title: 'Customer created from the customer portal' }, afterCommit);
      const customer = presentCustomer(await findCustomer(trx, customerId));
      afterCommit(() => ctx.hooks.doAction('store/customer/created', customer));
      return customerId;
    });
  } catch (error) {
    if (!isUniqueViolation(error, 'store_customers', 'user_id') && !isUniqueViolation(error, 'store_customers', 'email')) throw error;
    const winner = await customerIdOf(ctx.db, scope);
    if (winner !== null) return winner;
    // The record with this email is someone's guest record the caller may not claim (email not verified, or detached).
    if (isUniqueViolation(error, 'store_customers', 'email')) throw emailNotClaimable();
    throw error;
  }
}
