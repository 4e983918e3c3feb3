/**
 * Stock for the orders and checkout modules. Every change is one conditional UPDATE whose WHERE clause keeps a managed
 * variation's available stock (`stock_quantity - stock_on_hold`) at zero or above, so concurrent orders cannot
 * oversell whatever the isolation level: the database applies the updates one at a time and each re-checks the row.
 * Call inside the caller's transaction; hooks fire after its commit.
 */
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { lockForUpdate, type AfterCommit } from '../../core/db';
import { fail } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { presentVariation, type VariationRow } from './presenter';
import type { Variation } from './types';

const VARIATIONS = 'store_product_variations';

async function readVariation(trx: Knex.Transaction, variationId: number, lock = false): Promise<VariationRow> {
  const query = trx(VARIATIONS).where({ id: variationId });
  const row = (await (lock ? lockForUpdate(query, trx) : query).first()) as VariationRow | undefined;
  if (!row) throw fail('not_found', 'Variation not found');
  return row;
}

function assertInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${what} must be an integer, got ${value}`);
}

/**
 * Changes a managed variation's `stock_quantity` by `delta` (negative to take stock, positive to put it back).
 * Throws 422 `invalid_state` "Insufficient stock for <title>." when the available stock would drop below zero; a
 * no-op for variations whose stock is not managed. Fires `store/variation/stock_changed` after the commit.
 */
export async function adjustStock(trx: Knex.Transaction, ctx: Ctx, variationId: number, delta: number, afterCommit: AfterCommit): Promise<Variation> {
  assertInteger(delta, 'delta');
  const row = await readVariation(trx, variationId);
  if (!Number(row.manage_stock) || delta === 0) return presentVariation(row);
  const changed = await trx(VARIATIONS)
    .where({ id: variationId, manage_stock: 1 })
    .whereRaw('stock_quantity - stock_on_hold + ? >= 0', [delta])
    .update({ stock_quantity: trx.raw('stock_quantity + ?', [delta]), updated_at: toTimestamp(ctx.clock.now()) });
  if (!changed) throw fail('invalid_state', `Insufficient stock for ${row.title}.`, { status: 422 });
  // A locking read sees the row as this transaction left it, whatever snapshot a plain read would use.
  const variation = presentVariation(await readVariation(trx, variationId, true));
  const previousQuantity = variation.stock_quantity - delta;
  afterCommit(() => ctx.hooks.doAction('store/variation/stock_changed', variation, previousQuantity));
  return variation;
}

/**
 * Puts `quantity` units of a managed variation on hold (a checkout in progress): `stock_on_hold` grows, the available
 * stock shrinks, with the same guard as `adjustStock`. A no-op for unmanaged variations.
 */
export async function holdStock(trx: Knex.Transaction, ctx: Ctx, variationId: number, quantity: number): Promise<Variation> {
  assertInteger(quantity, 'quantity');
  if (quantity < 0) throw new RangeError('holdStock takes a positive quantity; use releaseStock');
  const row = await readVariation(trx, variationId);
  if (!Number(row.manage_stock) || quantity === 0) return presentVariation(row);
  const changed = await trx(VARIATIONS)
    .where({ id: variationId, manage_stock: 1 })
    .whereRaw('stock_quantity - stock_on_hold - ? >= 0', [quantity])
    .update({ stock_on_hold: trx.raw('stock_on_hold + ?', [quantity]), updated_at: toTimestamp(ctx.clock.now()) });
  if (!changed) throw fail('invalid_state', `Insufficient stock for ${row.title}.`, { status: 422 });
  return presentVariation(await readVariation(trx, variationId, true));
}

/**
 * Releases `quantity` held units (the checkout ended). Releasing more than is on hold is a 422 and changes nothing.
 * To turn a hold into a sale, release it and `adjustStock(-quantity)` in the same transaction.
 */
export async function releaseStock(trx: Knex.Transaction, ctx: Ctx, variationId: number, quantity: number): Promise<Variation> {
  assertInteger(quantity, 'quantity');
  if (quantity < 0) throw new RangeError('releaseStock takes a positive quantity; use holdStock');
  const row = await readVariation(trx, variationId);
  if (!Number(row.manage_stock) || quantity === 0) return presentVariation(row);
  const changed = await trx(VARIATIONS)
    .where({ id: variationId, manage_stock: 1 })
    .where('stock_on_hold', '>=', quantity)
    .update({ stock_on_hold: trx.raw('stock_on_hold - ?', [quantity]), updated_at: toTimestamp(ctx.clock.now()) });
  if (!changed) throw fail('invalid_state', `Cannot release more stock than is on hold for ${row.title}.`, { status: 422 });
  return presentVariation(await readVariation(trx, variationId, true));
}
