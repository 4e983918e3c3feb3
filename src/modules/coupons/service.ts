import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { insertedId, parseJson, whereContains } from '../../core/db';
import { fail, invalid, type FieldErrors } from '../../core/errors';
import { runList, type ListInput } from '../../core/list';
import { centsToDecimal, parseDecimalToCents } from '../../core/money';
import type { Page } from '../../core/page';
import { parseSearch } from '../../core/search';
import { fromTimestamp, toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { couponStatusAt } from './calculator';
import { MAX_CENTS, type CouponBody, type CouponPatch } from './schemas';
import type { Coupon, CouponStatus, CouponType } from './types';

/** A row of `store_coupons` as either database returns it (MySQL may give BIGINTs as strings). */
interface CouponRow {
  id: number | string;
  code: string;
  code_key: string;
  title: string;
  type: CouponType;
  amount: number | string;
  status: CouponStatus;
  starts_at: string | null;
  ends_at: string | null;
  min_purchase_amount: number | string | null;
  max_discount_amount: number | string | null;
  max_uses: number | string | null;
  max_per_customer: number | string | null;
  included_products: unknown;
  excluded_products: unknown;
  stackable: number | string;
  priority: number | string;
  use_count: number | string;
  notes: string;
  created_at: string;
  updated_at: string;
}

/** The writable columns, typed; `amount` as stored: cents (fixed), basis points (percentage, 12.5% = 1250), 0. */
type CouponRecord = Omit<Coupon, 'id' | 'effective_status' | 'use_count' | 'created_at' | 'updated_at'> & { code_key: string };

type CouponInput = Static<typeof CouponPatch>;

const CODE = /^[A-Za-z0-9_-]+$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const TABLE = 'store_coupons';

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const ids = (value: unknown): number[] => parseJson<unknown[]>(value, []).map(Number);

function toRecord(row: CouponRow): CouponRecord {
  return {
    code: row.code,
    code_key: row.code_key,
    title: row.title ?? '',
    type: row.type,
    amount: Number(row.amount),
    status: row.status,
    starts_at: row.starts_at ?? null,
    ends_at: row.ends_at ?? null,
    min_purchase_amount: numberOrNull(row.min_purchase_amount),
    max_discount_amount: numberOrNull(row.max_discount_amount),
    max_uses: numberOrNull(row.max_uses),
    max_per_customer: numberOrNull(row.max_per_customer),
    included_products: ids(row.included_products),
    excluded_products: ids(row.excluded_products),
    stackable: Number(row.stackable) ? 1 : 0,
    priority: Number(row.priority),
    notes: row.notes ?? '',
  };
}

/** A stored row as the API shows it; `effective_status` is computed at `now` (UTC `YYYY-MM-DD HH:MM:SS`). */
export function presentCoupon(row: CouponRow, now: string): Coupon {
  const record = toRecord(row);
  const use_count = Number(row.use_count);
  return {
    id: Number(row.id),
    code: record.code,
    title: record.title,
    type: record.type,
    // percentages are stored in basis points: 1250 → 12.5
    amount: record.type === 'percentage' ? Number(centsToDecimal(record.amount)) : record.amount,
    status: record.status,
    effective_status: couponStatusAt({ ...record, use_count }, now).status,
    starts_at: record.starts_at,
    ends_at: record.ends_at,
    min_purchase_amount: record.min_purchase_amount,
    max_discount_amount: record.max_discount_amount,
    max_uses: record.max_uses,
    max_per_customer: record.max_per_customer,
    included_products: record.included_products,
    excluded_products: record.excluded_products,
    stackable: record.stackable,
    priority: record.priority,
    use_count,
    notes: record.notes,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const nowOf = (ctx: Ctx) => toTimestamp(ctx.clock.now());

async function findRow(db: Knex | Knex.Transaction, id: number): Promise<CouponRow> {
  const row = (await db(TABLE).where({ id }).first()) as CouponRow | undefined;
  if (!row) throw fail('not_found', 'Coupon not found');
  return row;
}

function isUniqueViolation(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/i.test(message ?? '');
}

const codeTaken = () => invalid('code', 'unique', 'The code has already been taken.');

/** A `YYYY-MM-DD HH:MM:SS` that is a real calendar time, or null for null / ''. Undefined when invalid. */
function readTimestamp(value: string | null): string | null | undefined {
  if (value === null || value.trim() === '') return null;
  const text = value.trim();
  if (!TIMESTAMP.test(text)) return undefined;
  const date = fromTimestamp(text);
  return !Number.isNaN(date.getTime()) && toTimestamp(date) === text ? text : undefined;
}

/** The stored amount for a type, from what was sent (undefined: keep the previous amount when the type is unchanged). */
function readAmount(
  type: CouponType,
  sent: number | string | undefined,
  previous: CouponRecord | undefined,
  add: (rule: string, message: string) => void,
): number {
  if (type === 'free_shipping') {
    if (sent !== undefined && parseDecimalToCents(sent) !== 0) add('in', 'A free shipping coupon has no amount: send 0 or leave it out.');
    return 0;
  }
  if (sent === undefined || sent === '') {
    if (previous && previous.type === type && sent === undefined) return previous.amount;
    add('required', 'The amount field is required.');
    return 0;
  }
  if (type === 'fixed') {
    const cents = typeof sent === 'number' ? sent : /^\s*\d+\s*$/.test(sent) ? Number(sent) : NaN;
    if (!Number.isSafeInteger(cents) || cents <= 0 || cents > MAX_CENTS) {
      add('integer', 'The amount of a fixed coupon must be a whole number of cents greater than 0.');
      return 0;
    }
    return cents;
  }
  const basisPoints = parseDecimalToCents(sent, 2);
  if (basisPoints === null) {
    add('decimal', 'The amount of a percentage coupon must be a number with at most 2 decimals.');
    return 0;
  }
  if (basisPoints <= 0 || basisPoints > 10000) {
    add('between', 'The amount of a percentage coupon must be greater than 0 and at most 100.');
    return 0;
  }
  return basisPoints;
}

/**
 * Validates what was sent, merged over the stored coupon for an update, and returns the columns to write. All
 * failures are reported together, each field with its first failed rule.
 */
async function buildRecord(trx: Knex.Transaction, input: CouponInput, previous?: { id: number; record: CouponRecord }): Promise<CouponRecord> {
  const before = previous?.record;
  const errors: FieldErrors = {};
  const add = (field: string) => (rule: string, message: string) => {
    errors[field] ??= { [rule]: message };
  };

  const code = input.code !== undefined ? input.code.trim() : before!.code;
  if (input.code !== undefined) {
    if (!code) add('code')('required', 'The code field is required.');
    else if (!CODE.test(code)) add('code')('regex', 'The code may only contain letters, numbers, dashes and underscores.');
  }
  const type = input.type ?? before!.type;
  const amount = readAmount(type, input.amount, before, add('amount'));

  const date = (field: 'starts_at' | 'ends_at'): string | null => {
    if (input[field] === undefined) return before ? before[field] : null;
    const value = readTimestamp(input[field]!);
    if (value === undefined) add(field)('date_format', `The ${field.replace('_', ' ')} field must match the format YYYY-MM-DD HH:MM:SS.`);
    return value ?? null;
  };
  const starts_at = date('starts_at');
  const ends_at = date('ends_at');
  if (starts_at && ends_at && ends_at <= starts_at && !errors.starts_at && !errors.ends_at) {
    add('ends_at')('after', 'The ends at field must be a date after starts at.');
  }

  const products = async (field: 'included_products' | 'excluded_products'): Promise<number[]> => {
    if (input[field] === undefined) return before ? before[field] : [];
    const wanted = [...new Set(input[field]!)];
    if (wanted.length) {
      const found = new Set(((await trx('store_products').whereIn('id', wanted).select('id')) as Array<{ id: number | string }>).map((r) => Number(r.id)));
      const missing = wanted.filter((id) => !found.has(id));
      if (missing.length) add(field)('exists', `The selected ${field.replace('_', ' ')} are invalid: ${missing.join(', ')}.`);
    }
    return wanted;
  };
  const included_products = await products('included_products');
  const excluded_products = await products('excluded_products');
  const both = included_products.filter((id) => excluded_products.includes(id));
  if (both.length) add('excluded_products')('distinct', `A product cannot be both included and excluded: ${both.join(', ')}.`);

  const code_key = code.toLowerCase();
  if (code && !errors.code && code_key !== before?.code_key) {
    const taken = trx(TABLE).where('code_key', code_key);
    if (previous) taken.whereNot('id', previous.id);
    if (await taken.first('id')) add('code')('unique', 'The code has already been taken.');
  }

  if (Object.keys(errors).length) throw fail('validation_error', Object.values(Object.values(errors)[0])[0], { errors });

  type Direct = 'status' | 'min_purchase_amount' | 'max_discount_amount' | 'max_uses' | 'max_per_customer' | 'stackable' | 'priority';
  const pick = <K extends Direct>(key: K, fallback: CouponRecord[K]): CouponRecord[K] =>
    input[key] !== undefined ? (input[key] as CouponRecord[K]) : before ? before[key] : fallback;
  return {
    code,
    code_key,
    title: input.title !== undefined ? input.title.trim() : (before?.title ?? ''),
    type,
    amount,
    status: pick('status', 'active'),
    starts_at,
    ends_at,
    min_purchase_amount: pick('min_purchase_amount', null),
    max_discount_amount: pick('max_discount_amount', null),
    max_uses: pick('max_uses', null),
    max_per_customer: pick('max_per_customer', null),
    included_products,
    excluded_products,
    stackable: pick('stackable', 0),
    priority: pick('priority', 10),
    notes: input.notes !== undefined ? input.notes.trim() : (before?.notes ?? ''),
  };
}

function toColumns(record: CouponRecord): Record<string, unknown> {
  return { ...record, included_products: JSON.stringify(record.included_products), excluded_products: JSON.stringify(record.excluded_products) };
}

/** Runs a write, turning a race on the unique `code_key` (two creates at once) into the same 422 as the check. */
async function writing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw codeTaken();
    throw error;
  }
}

/** Search columns whose stored values are lower-case: an operator search on them compares lower-cased text. */
const LOWERCASE_COLUMNS = new Set(['code', 'status', 'type']);

export async function listCoupons(ctx: Ctx, input: ListInput & { status?: CouponStatus; type?: CouponType }): Promise<Page<Coupon>> {
  const query = ctx.db(TABLE).select('*');
  if (input.status) query.where('status', input.status);
  if (input.type) query.where('type', input.type);
  const term = parseSearch(input.search);
  // `code = SAVE10` must find `save10` on SQLite as on MySQL: compare the lower-cased key with a lower-cased value.
  const search = term.kind === 'condition' && LOWERCASE_COLUMNS.has(term.column) ? input.search?.toLowerCase() : input.search;
  const page = await runList<CouponRow>(
    ctx,
    query,
    { ...input, search },
    {
      limits: { max: 200, default: 10 },
      sortable: { id: 'id', code: 'code_key', created_at: 'created_at', priority: 'priority', use_count: 'use_count', ends_at: 'ends_at' },
      defaultSort: 'id',
      search: {
        columns: {
          id: { column: 'id', kind: 'integer' },
          code: { column: 'code_key', kind: 'string' },
          status: { column: 'status', kind: 'string' },
          type: { column: 'type', kind: 'string' },
          use_count: { column: 'use_count', kind: 'integer' },
        },
        idColumn: 'id',
        text: (q, text) => {
          q.where((w) => {
            whereContains(w, 'code', text);
            w.orWhere((o) => whereContains(o, 'title', text));
          });
        },
      },
    },
  );
  const now = nowOf(ctx);
  return { ...page, data: page.data.map((row) => presentCoupon(row, now)) };
}

export async function getCoupon(ctx: Ctx, id: number): Promise<Coupon> {
  return presentCoupon(await findRow(ctx.db, id), nowOf(ctx));
}

export async function createCoupon(ctx: Ctx, input: Static<typeof CouponBody>): Promise<Coupon> {
  return writing(() =>
    transaction(ctx, async (trx, afterCommit) => {
      const record = await buildRecord(trx, input);
      const now = nowOf(ctx);
      const id = insertedId(await trx(TABLE).insert({ ...toColumns(record), use_count: 0, created_at: now, updated_at: now }));
      const coupon = presentCoupon(await findRow(trx, id), now);
      await recordActivity(
        trx,
        ctx,
        { object_type: 'coupon', object_id: id, title: 'Coupon created', content: `Coupon ${coupon.code} was created.` },
        afterCommit,
      );
      afterCommit(() => ctx.hooks.doAction('store/coupon/created', coupon));
      return coupon;
    }),
  );
}

/**
 * Changes the fields sent (a partial update). Nothing written, logged or fired when no value actually changes.
 */
export async function updateCoupon(ctx: Ctx, id: number, input: CouponInput): Promise<Coupon> {
  return writing(() =>
    transaction(ctx, async (trx, afterCommit) => {
      const now = nowOf(ctx);
      const row = await findRow(trx, id);
      const previous = presentCoupon(row, now);
      const before = toRecord(row);
      const record = await buildRecord(trx, input, { id, record: before });
      const changed = (Object.keys(record) as Array<keyof CouponRecord>).filter(
        (key) => key !== 'code_key' && JSON.stringify(record[key]) !== JSON.stringify(before[key]),
      );
      if (!changed.length) return previous;
      await trx(TABLE)
        .where({ id })
        .update({ ...toColumns(record), updated_at: now });
      const coupon = presentCoupon(await findRow(trx, id), now);
      await recordActivity(
        trx,
        ctx,
        { object_type: 'coupon', object_id: id, title: 'Coupon updated', content: `Coupon ${coupon.code}: changed ${changed.join(', ')}.` },
        afterCommit,
      );
      afterCommit(() => ctx.hooks.doAction('store/coupon/updated', coupon, previous));
      return coupon;
    }),
  );
}

export async function deleteCoupon(ctx: Ctx, id: number): Promise<void> {
  await transaction(ctx, async (trx, afterCommit) => {
    const coupon = presentCoupon(await findRow(trx, id), nowOf(ctx));
    await trx(TABLE).where({ id }).delete();
    await recordActivity(
      trx,
      ctx,
      { object_type: 'coupon', object_id: id, title: 'Coupon deleted', content: `Coupon ${coupon.code} was deleted.` },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/coupon/deleted', coupon));
  });
}

/**
 * The coupons with these codes, matched case-insensitively (through `code_key`), in the order the codes were given;
 * unknown codes are left out and repeated codes give one coupon. `effective_status` is computed at `now`.
 */
export async function findCouponsByCodes(db: Knex | Knex.Transaction, codes: string[], now: Date = new Date()): Promise<Coupon[]> {
  const keys = [...new Set(codes.map((code) => String(code).trim().toLowerCase()).filter(Boolean))];
  if (!keys.length) return [];
  const rows = (await db(TABLE).whereIn('code_key', keys)) as CouponRow[];
  const at = toTimestamp(now);
  const byKey = new Map(rows.map((row) => [String(row.code_key).toLowerCase(), row]));
  return keys.flatMap((key) => {
    const row = byKey.get(key);
    return row ? [presentCoupon(row, at)] : [];
  });
}

/**
 * Counts one use of a coupon with a conditional update (`use_count < max_uses`, or no limit), so concurrent
 * checkouts can never push it past `max_uses`. False when the coupon is used up (or does not exist). Call it inside
 * the order's transaction so a failed order gives the use back.
 */
export async function incrementCouponUse(db: Knex | Knex.Transaction, couponId: number): Promise<boolean> {
  const updated = await db(TABLE)
    .where('id', couponId)
    .where((q) => q.whereNull('max_uses').orWhere('use_count', '<', db.ref('max_uses')))
    .increment('use_count', 1);
  return Number(updated) > 0;
}

/** Gives back one use of a coupon (an order no longer applies it); never below 0. Call inside the order's transaction. */
export async function releaseCouponUse(db: Knex | Knex.Transaction, couponId: number): Promise<void> {
  await db(TABLE).where('id', couponId).where('use_count', '>', 0).decrement('use_count', 1);
}

/**
 * Counts again a use given back by `releaseCouponUse` (a canceled order was reinstated). Unconditional: the use was
 * granted when the order was placed, so `max_uses` reached meanwhile does not take it away.
 */
export async function restoreCouponUse(db: Knex | Knex.Transaction, couponId: number): Promise<void> {
  await db(TABLE).where('id', couponId).increment('use_count', 1);
}
