import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { insertedId, lockForUpdate } from '../../core/db';
import { rejected, throwIfAny, fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { variationTaxClassErrors } from '../tax-classes/lookup';
import { presentVariation, type VariationRow } from './presenter';
import type { VariationBody, VariationPatch } from './schemas';
import { variationRow } from './service';
import type { Variation } from './types';
import { isUniqueViolation, NEW_VARIATION, resolveVariation, skusTaken, type VariationValues } from './validation';

const VARIATIONS = 'store_product_variations';

/** The product's row, locked on MySQL so that concurrent changes to its set of variations queue up; 404 when missing. */
async function lockProduct(trx: Knex.Transaction, productId: number): Promise<{ id: number; title: string }> {
  const row = (await lockForUpdate(trx('store_products').where({ id: productId }), trx).first('id', 'title')) as { id: number; title: string } | undefined;
  if (!row) throw fail('not_found', 'Product not found');
  return row;
}

/** A variation of `productId`: a variation of another product is as missing as one that does not exist. */
async function findVariationRow(db: Knex | Knex.Transaction, productId: number, variationId: number, lock = false): Promise<VariationRow> {
  const query = db(VARIATIONS).where({ id: variationId, product_id: productId });
  const row = (await (lock ? lockForUpdate(query, db) : query).first()) as VariationRow | undefined;
  if (!row) throw fail('not_found', 'Variation not found');
  return row;
}

function valuesOf(variation: Variation): VariationValues {
  const { title, sku, price, compare_price, cost, manage_stock, stock_quantity, payment_type, billing_interval } = variation;
  const { trial_days, bill_times, signup_fee, tax_class, shipping_class, position, status } = variation;
  return {
    title,
    sku,
    price,
    compare_price,
    cost,
    manage_stock,
    stock_quantity,
    payment_type,
    billing_interval,
    trial_days,
    bill_times,
    signup_fee,
    tax_class,
    shipping_class,
    position,
    status,
  };
}

function skuConflict(error: unknown): never {
  if (isUniqueViolation(error, VARIATIONS, 'sku')) throw rejected({ sku: { unique: 'The sku has already been taken.' } });
  throw error;
}

export async function listVariations(ctx: Ctx, productId: number): Promise<Variation[]> {
  if (!(await ctx.db('store_products').where({ id: productId }).first('id'))) throw fail('not_found', 'Product not found');
  const rows = (await ctx.db(VARIATIONS).where({ product_id: productId }).orderBy(['position', 'id'])) as VariationRow[];
  return rows.map(presentVariation);
}

export async function createVariation(ctx: Ctx, productId: number, input: Static<typeof VariationBody>): Promise<Variation> {
  return transaction(ctx, async (trx, afterCommit) => {
    const product = await lockProduct(trx, productId);
    const { values, errors } = resolveVariation(NEW_VARIATION, input);
    throwIfAny({ ...errors, ...(await variationTaxClassErrors(trx, [{ field: 'tax_class', tax_class: values.tax_class }])) });
    throwIfAny(await skusTaken(trx, [{ field: 'sku', sku: values.sku }]));
    if (input.position === undefined) {
      const last = (await trx(VARIATIONS).where({ product_id: productId }).max({ position: 'position' }).first()) as
        { position: number | string | null } | undefined;
      values.position = last?.position === null || last?.position === undefined ? 0 : Number(last.position) + 1;
    }
    const now = toTimestamp(ctx.clock.now());
    const id = insertedId(
      await trx(VARIATIONS)
        .insert(variationRow(productId, values, now))
        .catch(skuConflict),
    );
    const variation = presentVariation(await findVariationRow(trx, productId, id));
    await recordActivity(
      trx,
      ctx,
      { object_type: 'product', object_id: productId, title: 'Variation created', content: `${variation.title} (#${id}) added to ${product.title}` },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/variation/created', variation));
    return variation;
  });
}

export async function updateVariation(ctx: Ctx, productId: number, variationId: number, input: Static<typeof VariationPatch>): Promise<Variation> {
  return transaction(ctx, async (trx, afterCommit) => {
    await lockProduct(trx, productId);
    // Before the variation's row lock: a class delete holds the class rows, then rewrites variations.
    const classErrors = await variationTaxClassErrors(trx, [{ field: 'tax_class', tax_class: input.tax_class?.trim() || null }]);
    const previous = presentVariation(await findVariationRow(trx, productId, variationId, true));
    const { values, errors } = resolveVariation(valuesOf(previous), input);
    if (values.manage_stock && values.stock_quantity < previous.stock_on_hold) {
      errors.stock_quantity = { min: `The stock quantity cannot be less than the ${previous.stock_on_hold} unit(s) on hold.` };
    }
    throwIfAny({ ...errors, ...classErrors });
    if (input.sku !== undefined) throwIfAny(await skusTaken(trx, [{ field: 'sku', sku: values.sku }], variationId));
    await trx(VARIATIONS)
      .where({ id: variationId })
      .update({ ...values, updated_at: toTimestamp(ctx.clock.now()) })
      .catch(skuConflict);
    const variation = presentVariation(await findVariationRow(trx, productId, variationId));
    const changed = (Object.keys(values) as Array<keyof VariationValues>).filter((field) => variation[field] !== previous[field]);
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'product',
        object_id: productId,
        title: 'Variation updated',
        content: `${variation.title} (#${variationId})${changed.length ? `; changed: ${changed.join(', ')}` : ''}`,
      },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/variation/updated', variation, previous));
    if (variation.manage_stock && variation.stock_quantity !== previous.stock_quantity) {
      afterCommit(() => ctx.hooks.doAction('store/variation/stock_changed', variation, previous.stock_quantity));
    }
    return variation;
  });
}

/** Deletes a variation; the last one of a product stays (a product needs at least one). */
export async function deleteVariation(ctx: Ctx, productId: number, variationId: number): Promise<void> {
  await transaction(ctx, async (trx, afterCommit) => {
    await lockProduct(trx, productId);
    const variation = presentVariation(await findVariationRow(trx, productId, variationId));
    const count = (await trx(VARIATIONS).where({ product_id: productId }).count({ n: '*' }).first()) as { n: number | string };
    if (Number(count.n) <= 1) throw fail('invalid_state', 'A product needs at least one variation.');
    await trx(VARIATIONS).where({ id: variationId }).delete();
    await recordActivity(
      trx,
      ctx,
      { object_type: 'product', object_id: productId, title: 'Variation deleted', content: `${variation.title} (#${variationId})` },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/variation/deleted', variation));
  });
}
