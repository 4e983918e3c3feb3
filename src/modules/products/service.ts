import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { sanitizeRichText } from '../../core/html';
import { insertedId, whereContains } from '../../core/db';
import { rejected, throwIfAny, fail, type FieldErrors } from '../../core/errors';
import { slugify } from '../../core/slug';
import { runList, type ListSpec } from '../../core/list';
import type { Page } from '../../core/page';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { variationTaxClassErrors } from '../tax-classes/lookup';
import { presentProducts, type ProductRow } from './presenter';
import type { ProductBody, ProductListQuery, ProductPatch } from './schemas';
import type { Product } from './types';
import {
  isUniqueViolation,
  NEW_VARIATION,
  normalisePaymentType,
  requiredText,
  resolveVariation,
  skusTaken,
  slugTaken,
  uniqueSlug,
  type VariationValues,
} from './validation';

const PRODUCTS = 'store_products';

/** A product with its variations and categories; 404 when there is none. */
export async function findProduct(db: Knex | Knex.Transaction, id: number): Promise<Product> {
  const row = (await db(PRODUCTS).where({ id }).first()) as ProductRow | undefined;
  if (!row) throw fail('not_found', 'Product not found');
  return (await presentProducts(db, [row]))[0];
}

const LIST: ListSpec = {
  limits: { max: 200, default: 10 },
  sortable: { id: 'p.id', title: 'p.title', status: 'p.status', created_at: 'p.created_at', updated_at: 'p.updated_at' },
  defaultSort: 'id',
  search: {
    columns: {
      id: { column: 'p.id', kind: 'integer' },
      title: { column: 'p.title', kind: 'string' },
      status: { column: 'p.status', kind: 'string' },
      created_at: { column: 'p.created_at', kind: 'date' },
    },
    idColumn: 'p.id',
    // title, slug, or the SKU of one of its variations
    text: (query, text) =>
      query.where((q) =>
        q
          .where((w) => whereContains(w, 'p.title', text))
          .orWhere((w) => whereContains(w, 'p.slug', text))
          .orWhereExists((sub) =>
            whereContains(sub.select('sv.id').from('store_product_variations as sv').whereRaw('?? = ??', ['sv.product_id', 'p.id']), 'sv.sku', text),
          ),
      ),
  },
};

export async function listProducts(ctx: Ctx, input: Static<typeof ProductListQuery>): Promise<Page<Product>> {
  const query = ctx.db(`${PRODUCTS} as p`).select('p.*');
  if (input.status) query.where('p.status', input.status);
  if (input.fulfillment_type) query.where('p.fulfillment_type', input.fulfillment_type);
  if (input.payment_type) {
    const paymentType = normalisePaymentType(input.payment_type);
    query.whereExists((sub) =>
      sub.select('pv.id').from('store_product_variations as pv').whereRaw('?? = ??', ['pv.product_id', 'p.id']).where('pv.payment_type', paymentType),
    );
  }
  if (input.category_id !== undefined) {
    if (!(await ctx.db('store_product_categories').where({ id: input.category_id }).first('id'))) {
      throw rejected({ category_id: { exists: 'The selected category id is invalid.' } });
    }
    const categoryId = input.category_id;
    query.whereExists((sub) =>
      sub
        .select('pc.product_id')
        .from('store_product_category_relations as pc')
        .whereRaw('?? = ??', ['pc.product_id', 'p.id'])
        .where('pc.category_id', categoryId),
    );
  }
  const page = await runList<ProductRow>(ctx, query, input, LIST, 'p.id');
  return { ...page, data: await presentProducts(ctx.db, page.data) };
}

export const getProduct = (ctx: Ctx, id: number) => findProduct(ctx.db, id);

/** Unknown category ids as a 422 on `category_ids`. */
async function categoriesMissing(db: Knex | Knex.Transaction, ids: number[]): Promise<FieldErrors> {
  if (!ids.length) return {};
  const found = new Set(((await db('store_product_categories').whereIn('id', ids).pluck('id')) as Array<number | string>).map(Number));
  const missing = ids.filter((id) => !found.has(id));
  return missing.length ? { category_ids: { exists: `The selected category ids are invalid: ${missing.join(', ')}.` } } : {};
}

/** Replaces a product's categories with exactly `ids`. */
async function syncCategories(trx: Knex.Transaction, productId: number, ids: number[]): Promise<void> {
  await trx('store_product_category_relations')
    .where({ product_id: productId })
    .whereNotIn('category_id', ids.length ? ids : [0])
    .delete();
  const existing = new Set(
    ((await trx('store_product_category_relations').where({ product_id: productId }).pluck('category_id')) as Array<number | string>).map(Number),
  );
  const added = ids.filter((id) => !existing.has(id));
  if (added.length) await trx('store_product_category_relations').insert(added.map((category_id) => ({ product_id: productId, category_id })));
}

export function variationRow(productId: number, values: VariationValues, now: string) {
  return { product_id: productId, ...values, stock_on_hold: 0, created_at: now, updated_at: now };
}

/** Creates a product with its variations and categories in one transaction: a refused input leaves nothing behind. */
export async function createProduct(ctx: Ctx, input: Static<typeof ProductBody>): Promise<Product> {
  const errors: FieldErrors = {};
  const title = requiredText(input.title, 'title', errors);
  const variations = input.variations.map((variation, i) => {
    const resolved = resolveVariation({ ...NEW_VARIATION, position: i }, variation, `variations.${i}`);
    Object.assign(errors, resolved.errors);
    return resolved.values;
  });
  throwIfAny(errors);
  const categoryIds = [...new Set(input.category_ids ?? [])];

  // A generated slug can be taken by a concurrent create between choosing it and inserting it: choose again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction(ctx, async (trx, afterCommit) => {
        const taken: FieldErrors = {
          ...(await variationTaxClassErrors(
            trx,
            variations.map((v, i) => ({ field: `variations.${i}.tax_class`, tax_class: v.tax_class })),
          )),
          ...(input.slug ? await slugTaken(trx, PRODUCTS, input.slug) : {}),
          ...(await categoriesMissing(trx, categoryIds)),
          ...(await skusTaken(
            trx,
            variations.map((v, i) => ({ field: `variations.${i}.sku`, sku: v.sku })),
          )),
        };
        throwIfAny(taken);
        const slug = input.slug ?? (await uniqueSlug(trx, PRODUCTS, slugify(title, 'product')));
        const now = toTimestamp(ctx.clock.now());
        const id = insertedId(
          await trx(PRODUCTS).insert({
            title,
            slug,
            status: input.status ?? 'draft',
            description: sanitizeRichText(input.description ?? ''),
            fulfillment_type: input.fulfillment_type ?? 'physical',
            created_at: now,
            updated_at: now,
          }),
        );
        await trx('store_product_variations').insert(variations.map((values) => variationRow(id, values, now)));
        await syncCategories(trx, id, categoryIds);
        const product = await findProduct(trx, id);
        await recordActivity(
          trx,
          ctx,
          { object_type: 'product', object_id: id, title: 'Product created', content: `${title} with ${variations.length} variation(s)` },
          afterCommit,
        );
        afterCommit(() => ctx.hooks.doAction('store/product/created', product));
        return product;
      });
    } catch (error) {
      if (isUniqueViolation(error, PRODUCTS, 'slug')) {
        if (!input.slug && attempt < 3) continue;
        throw rejected({ slug: { unique: 'The slug has already been taken.' } });
      }
      if (isUniqueViolation(error, 'store_product_variations', 'sku')) throw rejected({ sku: { unique: 'The sku has already been taken.' } });
      throw error;
    }
  }
}

const EDITABLE = ['title', 'slug', 'status', 'description', 'fulfillment_type'] as const;

export async function updateProduct(ctx: Ctx, id: number, input: Static<typeof ProductPatch> & { variations?: unknown }): Promise<Product> {
  if (input.variations !== undefined) {
    throw rejected({ variations: { prohibited: 'Variations are changed through /products/{id}/variations.' } });
  }
  const errors: FieldErrors = {};
  const changes: Partial<Record<(typeof EDITABLE)[number], string>> = {};
  if (input.title !== undefined) changes.title = requiredText(input.title, 'title', errors);
  if (input.slug !== undefined) changes.slug = input.slug;
  if (input.status !== undefined) changes.status = input.status;
  if (input.description !== undefined) changes.description = sanitizeRichText(input.description);
  if (input.fulfillment_type !== undefined) changes.fulfillment_type = input.fulfillment_type;
  throwIfAny(errors);
  const categoryIds = input.category_ids === undefined ? undefined : [...new Set(input.category_ids)];

  try {
    return await transaction(ctx, async (trx, afterCommit) => {
      const previous = await findProduct(trx, id);
      throwIfAny({
        ...(changes.slug !== undefined ? await slugTaken(trx, PRODUCTS, changes.slug, id) : {}),
        ...(categoryIds ? await categoriesMissing(trx, categoryIds) : {}),
      });
      await trx(PRODUCTS)
        .where({ id })
        .update({ ...changes, updated_at: toTimestamp(ctx.clock.now()) });
      if (categoryIds) await syncCategories(trx, id, categoryIds);
      const product = await findProduct(trx, id);
      const changed: string[] = EDITABLE.filter((field) => product[field] !== previous[field]);
      if (product.categories.map((c) => c.id).join() !== previous.categories.map((c) => c.id).join()) changed.push('categories');
      await recordActivity(
        trx,
        ctx,
        { object_type: 'product', object_id: id, title: 'Product updated', content: changed.length ? `Changed: ${changed.join(', ')}` : 'No changes' },
        afterCommit,
      );
      afterCommit(() => ctx.hooks.doAction('store/product/updated', product, previous));
      return product;
    });
  } catch (error) {
    if (isUniqueViolation(error, PRODUCTS, 'slug')) throw rejected({ slug: { unique: 'The slug has already been taken.' } });
    throw error;
  }
}

/** Deletes a product with its variations and category links. */
export async function deleteProduct(ctx: Ctx, id: number): Promise<void> {
  await transaction(ctx, async (trx, afterCommit) => {
    const product = await findProduct(trx, id);
    await trx('store_product_category_relations').where({ product_id: id }).delete();
    await trx('store_product_variations').where({ product_id: id }).delete();
    await trx(PRODUCTS).where({ id }).delete();
    await recordActivity(trx, ctx, { object_type: 'product', object_id: id, title: 'Product deleted', content: product.title }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/product/deleted', product));
  });
}
