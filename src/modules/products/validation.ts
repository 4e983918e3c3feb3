import type { Knex } from 'knex';
import { escapeLike } from '../../core/db';
import type { FieldErrors } from '../../core/errors';
import { label } from '../../core/validate';
import type { BillingInterval, PaymentType, Variation, VariationStatus } from './types';

/** Whether a database error is a unique-key violation on `table.column` (SQLite and MySQL spell it differently). */
export function isUniqueViolation(error: unknown, table: string, column: string): boolean {
  const e = error as { code?: string; message?: string };
  const message = String(e?.message ?? '');
  if (e?.code === 'ER_DUP_ENTRY') return message.includes(`${table}_${column}_unique`);
  if (typeof e?.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT')) return message.includes(`UNIQUE constraint failed: ${table}.${column}`);
  return false;
}

/** `base`, or `base-2`, `base-3`… whichever is the first one free in `table`. */
export async function uniqueSlug(db: Knex | Knex.Transaction, table: string, base: string): Promise<string> {
  const taken = new Set(
    (await db(table)
      .where('slug', base)
      .orWhereRaw(`slug like ? escape '!'`, [`${escapeLike(base)}-%`])
      .pluck('slug')) as string[],
  );
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}-${n}`)) n++;
  return `${base}-${n}`;
}

/** Null when `slug` is free in `table` (other than `exceptId`), else the 422 field error. */
export async function slugTaken(db: Knex | Knex.Transaction, table: string, slug: string, exceptId?: number): Promise<FieldErrors> {
  const query = db(table).where('slug', slug);
  if (exceptId) query.whereNot('id', exceptId);
  return (await query.first('id')) ? { slug: { unique: 'The slug has already been taken.' } } : {};
}

/** A trimmed required text, or the field's `required` error. */
export function requiredText(value: string, field: string, errors: FieldErrors): string {
  const trimmed = value.trim();
  if (!trimmed) errors[field] = { required: `The ${label(field)} field is required.` };
  return trimmed;
}

/** The stored columns of a variation that its input decides. */
export type VariationValues = Omit<Variation, 'id' | 'product_id' | 'stock_on_hold' | 'stock_available' | 'stock_status' | 'created_at' | 'updated_at'>;

export interface VariationInput {
  title?: string;
  sku?: string | null;
  price?: number;
  compare_price?: number | null;
  cost?: number | null;
  manage_stock?: boolean | 0 | 1;
  stock_quantity?: number;
  payment_type?: 'onetime' | 'one-time' | 'subscription';
  billing_interval?: BillingInterval | null;
  trial_days?: number;
  bill_times?: number;
  signup_fee?: number;
  tax_class?: string | null;
  shipping_class?: string | null;
  position?: number;
  status?: VariationStatus;
}

export const NEW_VARIATION: VariationValues = {
  title: '',
  sku: null,
  price: 0,
  compare_price: null,
  cost: null,
  manage_stock: 0,
  stock_quantity: 0,
  payment_type: 'onetime',
  billing_interval: null,
  trial_days: 0,
  bill_times: 0,
  signup_fee: 0,
  tax_class: null,
  shipping_class: null,
  position: 0,
  status: 'active',
};

const blankToNull = (value: string | null | undefined): string | null => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
};

export const normalisePaymentType = (value: 'onetime' | 'one-time' | 'subscription'): PaymentType => (value === 'subscription' ? 'subscription' : 'onetime');

const SUBSCRIPTION_TERMS = ['billing_interval', 'trial_days', 'bill_times', 'signup_fee'] as const;

/**
 * A variation's stored values after applying `input` over `base` (the defaults for a new one, the stored values for
 * an update), and the rules the schema cannot express, under field names prefixed with `prefix`
 * (`variations.0.price`). A variation that becomes one-time drops the subscription terms it no longer uses; sending
 * terms for a one-time variation is an error.
 */
export function resolveVariation(base: VariationValues, input: VariationInput, prefix = ''): { values: VariationValues; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const key = (field: string) => (prefix ? `${prefix}.${field}` : field);
  const values: VariationValues = { ...base };
  if (input.title !== undefined) values.title = requiredText(input.title, key('title'), errors);
  if (input.sku !== undefined) values.sku = blankToNull(input.sku);
  if (input.price !== undefined) values.price = input.price;
  if (input.compare_price !== undefined) values.compare_price = input.compare_price;
  if (input.cost !== undefined) values.cost = input.cost;
  if (input.manage_stock !== undefined) values.manage_stock = input.manage_stock === true || input.manage_stock === 1 ? 1 : 0;
  if (input.stock_quantity !== undefined) values.stock_quantity = input.stock_quantity;
  if (input.payment_type !== undefined) values.payment_type = normalisePaymentType(input.payment_type);
  if (input.billing_interval !== undefined) values.billing_interval = input.billing_interval;
  if (input.trial_days !== undefined) values.trial_days = input.trial_days;
  if (input.bill_times !== undefined) values.bill_times = input.bill_times;
  if (input.signup_fee !== undefined) values.signup_fee = input.signup_fee;
  if (input.tax_class !== undefined) values.tax_class = blankToNull(input.tax_class);
  if (input.shipping_class !== undefined) values.shipping_class = blankToNull(input.shipping_class);
  if (input.position !== undefined) values.position = input.position;
  if (input.status !== undefined) values.status = input.status;

  if (values.payment_type === 'onetime') {
    for (const term of SUBSCRIPTION_TERMS) {
      const sent = input[term];
      if (sent !== undefined && sent !== null && sent !== 0) {
        errors[key(term)] = { prohibited: `The ${label(term)} field is only allowed for subscriptions.` };
      }
    }
    Object.assign(values, { billing_interval: null, trial_days: 0, bill_times: 0, signup_fee: 0 });
  } else if (!values.billing_interval) {
    errors[key('billing_interval')] = { required: 'The billing interval field is required for a subscription.' };
  }
  if (values.compare_price !== null && values.compare_price < values.price) {
    errors[key('compare_price')] = { gte: 'The compare price must be greater than or equal to the price.' };
  }
  return { values, errors };
}

/**
 * SKU uniqueness across all variations, case-insensitively (as MySQL's collation compares them, so both databases
 * agree), including duplicates inside one request. `entries` pair each SKU with the field to name.
 */
export async function skusTaken(db: Knex | Knex.Transaction, entries: Array<{ field: string; sku: string | null }>, exceptId?: number): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const message = { unique: 'The sku has already been taken.' };
  const seen = new Set<string>();
  const wanted = entries.filter((e): e is { field: string; sku: string } => e.sku !== null);
  for (const entry of wanted) {
    const lower = entry.sku.toLowerCase();
    if (seen.has(lower)) errors[entry.field] = message;
    seen.add(lower);
  }
  if (!seen.size) return errors;
  const lowered = [...seen];
  const query = db('store_product_variations').whereRaw(`lower(sku) in (${lowered.map(() => '?').join(', ')})`, lowered);
  if (exceptId) query.whereNot('id', exceptId);
  const found = new Set(((await query.pluck('sku')) as string[]).map((sku) => sku.toLowerCase()));
  for (const entry of wanted) if (found.has(entry.sku.toLowerCase())) errors[entry.field] = message;
  return errors;
}
