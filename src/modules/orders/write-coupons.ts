import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import type { FieldErrors } from '../../core/errors';
import { centsToDecimal } from '../../core/money';
import { percentageBasisPoints, REJECTION_MESSAGES, type RejectedCoupon } from '../coupons/calculator';
import { findCouponsByCodes, incrementCouponUse, releaseCouponUse } from '../coupons/service';
import type { CalculatorCoupon, CouponType } from '../coupons/types';
import type { CouponOutcome } from './totals';
import type { AppliedCouponInput } from './write-schemas';

type Db = Knex | Knex.Transaction;
type Num = number | string;

export type AppliedCouponEntry = Static<typeof AppliedCouponInput>;

/** A stored `store_applied_coupons` row. */
export type AppliedRow = Record<string, unknown> & { id: Num; coupon_id: Num | null; code: string };

export interface ResolvedCoupons {
  coupons: CalculatorCoupon[];
  /** Earlier uses by the customer of the coupons new to the order, by coupon id. */
  customerUses: Record<number, number>;
  errors: FieldErrors;
  /** Coupon ids already applied to the order before this write (their use is already counted). */
  kept: Set<number>;
  /** Body entry indexes of each coupon id, to name the failing entry. */
  entries: Map<number, number[]>;
}

const numOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/** A coupon already applied to the order keeps its right to apply (dates, status and usage limits were checked then). */
function relaxed(coupon: CalculatorCoupon): CalculatorCoupon {
  return { ...coupon, status: 'active', starts_at: null, ends_at: null, max_uses: null, max_per_customer: null };
}

/** A coupon deleted since the order applied it, rebuilt from the order's copy (its product lists are not kept). */
function snapshotOf(row: AppliedRow): CalculatorCoupon {
  const type = String(row.type) as CouponType;
  return relaxed({
    id: Number(row.coupon_id),
    code: row.code,
    type,
    amount: type === 'percentage' ? Number(centsToDecimal(Number(row.amount))) : Number(row.amount),
    status: 'active',
    starts_at: null,
    ends_at: null,
    min_purchase_amount: numOrNull(row.min_purchase_amount),
    max_discount_amount: numOrNull(row.max_discount_amount),
    max_uses: null,
    max_per_customer: null,
    included_products: [],
    excluded_products: [],
    stackable: Number(row.stackable) ? 1 : 0,
    priority: Number(row.priority ?? 0),
    use_count: 0,
  });
}

/**
 * The coupons an order applies, looked up by code. A code unknown to the store, or a `coupon_id` that is not the
 * code's coupon, is a field error; coupons the order already had (`stored`) are kept with their checks relaxed.
 */
export async function resolveCoupons(db: Db, input: AppliedCouponEntry[], stored: AppliedRow[], customerId: number, now: Date): Promise<ResolvedCoupons> {
  const errors: FieldErrors = {};
  const live = new Map(
    (
      await findCouponsByCodes(
        db,
        input.map((entry) => entry.code),
        now,
      )
    ).map((coupon) => [coupon.code.toLowerCase(), coupon]),
  );
  const storedById = new Map(stored.filter((row) => row.coupon_id !== null).map((row) => [Number(row.coupon_id), row]));
  const coupons: CalculatorCoupon[] = [];
  const kept = new Set<number>();
  const entries = new Map<number, number[]>();
  input.forEach((entry, i) => {
    const coupon = live.get(entry.code.trim().toLowerCase());
    const previous = storedById.get(entry.coupon_id);
    let chosen: CalculatorCoupon;
    if (previous && (!coupon || coupon.id === entry.coupon_id)) {
      chosen = coupon ? relaxed(coupon) : snapshotOf(previous);
      kept.add(entry.coupon_id);
    } else if (!coupon) {
      errors[`applied_coupon.${i}.code`] = { exists: 'The selected coupon code is invalid.' };
      return;
    } else if (coupon.id !== entry.coupon_id) {
      errors[`applied_coupon.${i}.coupon_id`] = { exists: 'The coupon id does not belong to the coupon code.' };
      return;
    } else {
      chosen = coupon;
    }
    coupons.push(chosen);
    entries.set(chosen.id, [...(entries.get(chosen.id) ?? []), i]);
  });

  const fresh = coupons.map((coupon) => coupon.id).filter((id) => !kept.has(id));
  const customerUses: Record<number, number> = {};
  if (fresh.length) {
    const rows = (await db('store_applied_coupons')
      .where('customer_id', customerId)
      .whereIn('coupon_id', fresh)
      .groupBy('coupon_id')
      .select('coupon_id')
      .count({ uses: '*' })) as Array<{ coupon_id: Num; uses: Num }>;
    for (const row of rows) customerUses[Number(row.coupon_id)] = Number(row.uses);
  }
  return { coupons, customerUses, errors, kept, entries };
}

/** The calculator's refusals as field errors on the entry that caused them (a repeated coupon: its later entry). */
export function rejectionErrors(rejected: RejectedCoupon[], entries: Map<number, number[]>): FieldErrors {
  const errors: FieldErrors = {};
  for (const rejection of rejected) {
    const indexes = entries.get(rejection.coupon_id) ?? [0];
    const index = rejection.rule === 'duplicate' ? indexes[indexes.length - 1] : indexes[0];
    errors[`applied_coupon.${index}.code`] = { [rejection.rule]: rejection.reason };
  }
  return errors;
}

/**
 * Replaces the order's applied coupons with what the calculator kept: a coupon new to the order counts one use (a
 * conditional update, so parallel orders never pass `max_uses`), a coupon the order no longer applies gives its use
 * back. Returns the field errors of coupons that were used up meanwhile (the caller rolls back).
 */
export async function saveAppliedCoupons(
  trx: Knex.Transaction,
  order: { id: number; customer_id: number },
  outcomes: CouponOutcome[],
  resolved: ResolvedCoupons,
  input: AppliedCouponEntry[],
  stored: AppliedRow[],
  now: string,
): Promise<FieldErrors> {
  const byId = new Map(resolved.coupons.map((coupon) => [coupon.id, coupon]));
  const storedById = new Map(stored.filter((row) => row.coupon_id !== null).map((row) => [Number(row.coupon_id), row]));
  const errors: FieldErrors = {};
  // By primary key: a DELETE by order_id would take gap locks that deadlock parallel orders' inserts on MySQL.
  if (stored.length)
    await trx('store_applied_coupons')
      .whereIn(
        'id',
        stored.map((row) => Number(row.id)),
      )
      .delete();
  for (const outcome of outcomes) {
    const coupon = byId.get(outcome.coupon_id) as CalculatorCoupon;
    const index = resolved.entries.get(coupon.id)?.[0] ?? 0;
    const isNew = !resolved.kept.has(coupon.id);
    if (isNew && !(await incrementCouponUse(trx, coupon.id))) {
      errors[`applied_coupon.${index}.code`] = { usage_limit: REJECTION_MESSAGES.usage_limit };
      continue;
    }
    const previous = storedById.get(coupon.id);
    await trx('store_applied_coupons').insert({
      order_id: order.id,
      coupon_id: coupon.id,
      customer_id: order.customer_id,
      code: coupon.code,
      type: coupon.type,
      // as `store_coupons` stores it: percentages in basis points
      amount: coupon.type === 'percentage' ? percentageBasisPoints(coupon.amount) : coupon.amount,
      discounted_amount: outcome.discount,
      stackable: coupon.stackable,
      priority: coupon.priority,
      max_uses: previous ? previous.max_uses : coupon.max_uses,
      use_count: previous ? Number(previous.use_count ?? 0) : coupon.use_count + 1,
      max_per_customer: previous ? previous.max_per_customer : coupon.max_per_customer,
      min_purchase_amount: coupon.min_purchase_amount,
      max_discount_amount: coupon.max_discount_amount,
      notes: input[index]?.notes ?? (previous ? String(previous.notes ?? '') : ''),
      created_at: previous ? String(previous.created_at) : now,
      updated_at: now,
    });
  }
  const applied = new Set(outcomes.map((outcome) => outcome.coupon_id));
  for (const couponId of storedById.keys()) if (!applied.has(couponId)) await releaseCouponUse(trx, couponId);
  return errors;
}
