import type { Knex } from 'knex';

/**
 * Titles of the products and variations a report ranks: the catalogue's, and for a product deleted since, the
 * copies the orders kept (the items' `post_title`; a variation's line title in `store_report_order_lines`). Lines
 * without a product (id 0) are named as such.
 */

export const NO_PRODUCT_TITLE = 'Items without a product';

/** A variation's title as order lines show it: the product's, plus the variation's when it differs. */
export const variantTitle = (product: string, variation: string) => (variation && variation !== product ? `${product} – ${variation}` : product);

export async function productTitles(db: Knex, productIds: number[]): Promise<Map<number, string>> {
  const ids = [...new Set(productIds)].filter((id) => id > 0);
  const titles = new Map<number, string>([[0, NO_PRODUCT_TITLE]]);
  if (!ids.length) return titles;
  const rows = (await db('store_products').whereIn('id', ids).select('id', 'title')) as Array<{ id: number | string; title: string }>;
  for (const row of rows) titles.set(Number(row.id), row.title);
  const deleted = ids.filter((id) => !titles.has(id));
  const kept = await Promise.all(
    deleted.map(async (id) => {
      const item = (await db('store_order_items').where('post_id', id).orderBy('id', 'desc').first('post_title')) as { post_title: string } | undefined;
      return [id, item?.post_title ?? ''] as const;
    }),
  );
  for (const [id, title] of kept) titles.set(id, title);
  return titles;
}

export const variantKey = (productId: number, variationId: number) => `${productId}:${variationId}`;

/** Titles by `productId:variationId`; variation 0 (a line without a variation) has its product's title. */
export async function variantTitles(db: Knex, keys: Array<{ product_id: number; variation_id: number }>): Promise<Map<string, string>> {
  const products = await productTitles(
    db,
    keys.map((key) => key.product_id),
  );
  const variationIds = [...new Set(keys.map((key) => key.variation_id))].filter((id) => id > 0);
  const rows = variationIds.length
    ? ((await db('store_product_variations as v')
        .join('store_products as p', 'p.id', 'v.product_id')
        .whereIn('v.id', variationIds)
        .select('v.id', 'v.product_id', 'v.title', 'p.title as product_title')) as Array<{
        id: number | string;
        product_id: number | string;
        title: string;
        product_title: string;
      }>)
    : [];
  const catalogue = new Map(rows.map((row) => [variantKey(Number(row.product_id), Number(row.id)), variantTitle(row.product_title, row.title)]));
  const titles = new Map<string, string>();
  await Promise.all(
    keys.map(async ({ product_id, variation_id }) => {
      const key = variantKey(product_id, variation_id);
      let title = variation_id === 0 || product_id === 0 ? products.get(product_id) : catalogue.get(key);
      if (title === undefined) {
        const line = (await db('store_report_order_lines').where({ variation_id, product_id }).first('title')) as { title: string } | undefined;
        title = line?.title ?? '';
      }
      titles.set(key, title);
    }),
  );
  return titles;
}
