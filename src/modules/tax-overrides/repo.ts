import type { Knex } from 'knex';
import { lockForUpdate, parseJson } from '../../core/db';
import { OVERRIDE_META_KEY, OVERRIDE_OBJECT_TYPE, type OverrideValue, type TaxOverride } from './types';

type Db = Knex | Knex.Transaction;

const META = 'store_meta';

export interface OverrideRow {
  id: number | string;
  object_id: number | string;
  meta_value: unknown;
  created_at: string;
  updated_at: string;
}

/** The stored JSON, with its types made honest (a row written by hand or by an older writer may hold numeric strings). */
export function overrideValue(raw: unknown): OverrideValue {
  const value = parseJson<Partial<Record<keyof OverrideValue, unknown>>>(raw, {});
  const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  return {
    country: text(value.country).toUpperCase(),
    state: text(value.state),
    city: text(value.city),
    postcode: text(value.postcode),
    category_id: Number(value.category_id) || 0,
    category_name: text(value.category_name),
    tax_label: text(value.tax_label),
    override_state_tax: value.override_state_tax === 'yes' ? 'yes' : 'no',
    rate: text(value.rate) || '0',
    class_id: Number(value.class_id) || 0,
  };
}

/** Every class's title by id (at most a handful of rows). */
export async function classTitles(db: Db): Promise<Map<number, string>> {
  const rows = (await db('store_tax_classes').select('id', 'title')) as Array<{ id: number | string; title: string }>;
  return new Map(rows.map((row) => [Number(row.id), row.title]));
}

export function presentOverride(row: OverrideRow, titles: Map<number, string>): TaxOverride {
  const value = overrideValue(row.meta_value);
  return {
    id: Number(row.id),
    object_type: OVERRIDE_OBJECT_TYPE,
    object_id: Number(row.object_id),
    meta_key: OVERRIDE_META_KEY,
    meta_value: value,
    class_id: value.class_id,
    class_label: value.class_id ? (titles.get(value.class_id) ?? '') : '',
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The override rows, in id order. */
export const overrideRows = (db: Db) => db(META).where({ object_type: OVERRIDE_OBJECT_TYPE, meta_key: OVERRIDE_META_KEY }).orderBy('id');

/** One category's override rows, locked until the transaction ends. */
const categoryRows = (trx: Knex.Transaction, categoryId: number) => lockForUpdate(overrideRows(trx).where({ object_id: categoryId }), trx);

/** Deletes a category's override rows; answers them as they were. */
export async function deleteCategoryRows(trx: Knex.Transaction, categoryId: number): Promise<TaxOverride[]> {
  const rows = (await categoryRows(trx, categoryId)) as OverrideRow[];
  if (!rows.length) return [];
  const titles = await classTitles(trx);
  const ids = rows.map((row) => Number(row.id));
  await trx(META).whereIn('id', ids).delete();
  return rows.map((row) => presentOverride(row, titles));
}

/** Keeps the overrides' copy of the category name in step with a renamed category. */
export async function renameCategoryOverrides(trx: Knex.Transaction, categoryId: number, name: string, now: string): Promise<void> {
  const rows = (await categoryRows(trx, categoryId)) as OverrideRow[];
  for (const row of rows) {
    const value = { ...overrideValue(row.meta_value), category_name: name };
    await trx(META)
      .where({ id: row.id })
      .update({ meta_value: JSON.stringify(value), updated_at: now });
  }
}
