/**
 * What the tax engine reads for one pricing, through the pricing's transaction when there is one (on SQLite it holds
 * the only connection): the country's rates (one indexed query), the category overrides, the
 * classes, and the categories of the products priced. A handful of queries per pricing, none per line. Rows whose
 * percentage is not a non-negative decimal of at most 4 places are skipped.
 */
import type { Knex } from 'knex';
import { parseJson } from '../../core/db';
import { percentUnits } from './fraction';
import type { EngineOverride, EngineRate, TaxClassRef } from './types';

type Db = Knex | Knex.Transaction;

const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));

export async function countryRates(db: Db, country: string): Promise<EngineRate[]> {
  const rows = (await db('store_tax_rates')
    .where({ country })
    .orderBy([{ column: 'priority' }, { column: 'id' }])
    .select('id', 'class_id', 'country', 'state', 'city', 'postcode', 'rate', 'name', 'priority', 'is_compound', 'for_shipping', 'for_order')) as Array<
    Record<string, unknown>
  >;
  return rows
    .filter((row) => percentUnits(row.rate) !== null)
    .map((row) => ({
      id: Number(row.id),
      class_id: Number(row.class_id),
      country: text(row.country),
      state: text(row.state),
      city: text(row.city),
      postcode: text(row.postcode),
      rate: text(row.rate),
      name: text(row.name),
      priority: Number(row.priority),
      is_compound: Number(row.is_compound) ? 1 : 0,
      for_shipping: row.for_shipping === null || row.for_shipping === undefined ? null : String(row.for_shipping),
      for_order: Number(row.for_order) ? 1 : 0,
    }));
}

/** Every product-category override (meta rows hold their country in JSON, so they are filtered by `matchOverrides`). */
export async function categoryOverrides(db: Db): Promise<EngineOverride[]> {
  const rows = (await db('store_meta').where({ object_type: 'tax_override', meta_key: 'product_category_override' }).select('id', 'meta_value')) as Array<{
    id: number | string;
    meta_value: unknown;
  }>;
  return rows.flatMap((row): EngineOverride[] => {
    const value = parseJson<Record<string, unknown>>(row.meta_value, {});
    if (percentUnits(value.rate) === null || !Number.isSafeInteger(Number(value.category_id))) return [];
    return [
      {
        id: Number(row.id),
        country: text(value.country),
        state: text(value.state),
        city: text(value.city),
        postcode: text(value.postcode),
        category_id: Number(value.category_id),
        category_name: text(value.category_name),
        tax_label: text(value.tax_label),
        override_state_tax: value.override_state_tax === 'yes' ? 'yes' : 'no',
        rate: text(value.rate),
        class_id: Number(value.class_id ?? 0) || 0,
      },
    ];
  });
}

export async function taxClasses(db: Db): Promise<TaxClassRef[]> {
  const rows = (await db('store_tax_classes').select('id', 'slug')) as Array<{ id: number | string; slug: string }>;
  return rows.map((row) => ({ id: Number(row.id), slug: row.slug }));
}

/** The category ids of each product. */
export async function productCategories(db: Db, productIds: number[]): Promise<Map<number, number[]>> {
  const byProduct = new Map<number, number[]>();
  if (!productIds.length) return byProduct;
  const rows = (await db('store_product_category_relations').whereIn('product_id', productIds).select('product_id', 'category_id')) as Array<{
    product_id: number | string;
    category_id: number | string;
  }>;
  for (const row of rows) {
    const productId = Number(row.product_id);
    byProduct.set(productId, [...(byProduct.get(productId) ?? []), Number(row.category_id)]);
  }
  return byProduct;
}
