/** The order-writing bodies read into checked values: the order columns, the discount object, the shipping entries. */
import type { FieldErrors } from '../../core/errors';
import { ownEntry } from '../../core/lookup';
import { centsToDecimal, parseDecimalToCents } from '../../core/money';
import { isTimeZone, zonedToUtc } from '../../core/time';
import type { OrderRow } from '../order-records/presenter';
import { FULFILLMENT_TYPES, ORDER_STATUSES, ORDER_TYPES, PAYMENT_STATUS_ALIASES, type OrderStatus, type OrderType, type PaymentStatus } from './state';
import type { ManualDiscount } from './totals';
import type { CreateOrderBody, DiscountInput, ShippingEntryInput, UpdateOrderBody } from './write-schemas';

/** Payment statuses a new order may be given: `paid` goes through the payments ledger, the others move no money. */
export const CREATE_PAYMENT_STATUSES = ['pending', 'failed', 'paid'];

/** The discount object as the order keeps it (`config.discount`), `value` in cents or percent. */
export interface StoredDiscount {
  type: 'fixed' | 'percentage';
  label: string;
  reason: string;
  action: string;
  value: number;
}

/** What the order keeps in `config`: the discount object, the shipping entries and the creator's time zone. */
export interface OrderConfig {
  discount?: StoredDiscount | null;
  shipping?: ShippingEntryInput[];
  user_tz?: string;
  [key: string]: unknown;
}

/** The writable order columns a body sets, checked; absent fields are undefined. */
export interface OrderFields {
  status?: OrderStatus;
  type?: OrderType;
  payment_status?: PaymentStatus;
  invoice_no?: string;
  payment_method?: string;
  payment_method_title?: string;
  currency?: string;
  rate?: number;
  note?: string;
  ip_address?: string;
  completed_at?: string | null;
  refunded_at?: string | null;
  user_tz?: string;
}

const textOf = (value: string | null | undefined) => (value === undefined ? undefined : (value ?? '').trim());

function oneOf<T extends string>(value: string | undefined, allowed: readonly string[], field: string, errors: FieldErrors): T | undefined {
  if (value === undefined) return undefined;
  if (allowed.includes(value)) return value as T;
  errors[field] = { in: `The selected ${field.replace(/_/g, ' ')} is invalid.` };
  return undefined;
}

function timestampField(value: string | null | undefined, field: string, errors: FieldErrors): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value.trim() === '') return null;
  try {
    return zonedToUtc(value, 'UTC');
  } catch {
    errors[field] = { date: `The ${field.replace(/_/g, ' ')} field must be a valid date (YYYY-MM-DD HH:MM:SS, UTC).` };
    return undefined;
  }
}

/** The body's order columns, each checked; problems go to `errors`. */
export function readFields(body: CreateOrderBody | UpdateOrderBody, paymentStatuses: readonly string[], errors: FieldErrors): OrderFields {
  const paymentStatus = body.payment_status === undefined ? undefined : (ownEntry(PAYMENT_STATUS_ALIASES, body.payment_status) ?? body.payment_status);
  oneOf(body.fulfillment_type, FULFILLMENT_TYPES, 'fulfillment_type', errors);
  const currency = body.currency?.trim().toUpperCase();
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) errors.currency = { currency: 'The currency field must be a valid ISO 4217 code.' };
  const userTz = textOf(body.user_tz);
  if (userTz && !isTimeZone(userTz)) errors.user_tz = { timezone: 'The user tz field must be a valid timezone.' };
  return {
    status: oneOf<OrderStatus>(body.status, ORDER_STATUSES, 'status', errors),
    type: oneOf<OrderType>(body.type, ORDER_TYPES, 'type', errors),
    payment_status: oneOf<PaymentStatus>(paymentStatus, paymentStatuses, 'payment_status', errors),
    invoice_no: textOf(body.invoice_no),
    payment_method: textOf(body.payment_method),
    payment_method_title: textOf(body.payment_method_title),
    currency,
    rate: body.rate,
    note: body.note === undefined ? undefined : (body.note ?? ''),
    ip_address: textOf(body.ip_address),
    completed_at: timestampField(body.completed_at, 'completed_at', errors),
    refunded_at: timestampField(body.refunded_at, 'refunded_at', errors),
    user_tz: userTz,
  };
}

const DISCOUNT_KINDS = { fixed: 'fixed', amount: 'fixed', percentage: 'percentage', percent: 'percentage' } as const;

/**
 * The discount object: `fixed` (or `amount`) takes `value` cents, `percentage` (or `percent`) takes `value` percent
 * with up to two decimals. Without a value (or with 0) there is no discount.
 */
export function readDiscount(input: DiscountInput | null | undefined, errors: FieldErrors): { discount: ManualDiscount | null; stored: StoredDiscount | null } {
  if (!input || input.value === undefined || input.value === '') return { discount: null, stored: null };
  const kind = ownEntry(DISCOUNT_KINDS, String(input.type ?? '').toLowerCase());
  const meta = { label: input.label ?? '', reason: input.reason ?? '', action: input.action ?? '' };
  if (!kind) {
    errors['discount.type'] = { in: 'The discount type must be fixed or percentage.' };
    return { discount: null, stored: null };
  }
  if (kind === 'fixed') {
    const amount = typeof input.value === 'number' ? input.value : /^\d+$/.test(input.value.trim()) ? Number(input.value) : NaN;
    if (!Number.isSafeInteger(amount) || amount < 0) {
      errors['discount.value'] = { integer: 'A fixed discount value must be a whole number of cents, at least 0.' };
      return { discount: null, stored: null };
    }
    return { discount: { type: 'fixed', amount }, stored: { type: 'fixed', ...meta, value: amount } };
  }
  const basisPoints = parseDecimalToCents(input.value);
  if (basisPoints === null || basisPoints < 0 || basisPoints > 10000) {
    errors['discount.value'] = { between: 'A percentage discount value must be between 0 and 100, with at most two decimals.' };
    return { discount: null, stored: null };
  }
  return { discount: { type: 'percentage', basis_points: basisPoints }, stored: { type: 'percentage', ...meta, value: Number(centsToDecimal(basisPoints)) } };
}

export const shippingEntries = (entries: ShippingEntryInput[]) =>
  entries.map((entry) => ({ type: entry.type ?? '', rate_name: entry.rate_name ?? '', custom_price: entry.custom_price }));

/**
 * An order written elsewhere (checkout, imports) has no discount object or shipping entries in its `config`: its
 * manual discount and shipping total are kept as a fixed discount and one shipping entry until a body replaces them.
 */
export function withWrittenElsewhere(config: OrderConfig, row: OrderRow): OrderConfig {
  const manual = Number(row.manual_discount_total ?? 0);
  const shipping = Number(row.shipping_total ?? 0);
  return {
    ...config,
    discount: config.discount !== undefined ? config.discount : manual > 0 ? { type: 'fixed', label: '', reason: '', action: '', value: manual } : null,
    shipping: config.shipping ?? (shipping > 0 ? [{ type: 'stored', rate_name: '', custom_price: shipping }] : []),
  };
}
