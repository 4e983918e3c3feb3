/**
 * An order's stock, as a state on the order (`store_orders.stock_state`) and a count per line (`store_order_items.
 * stock_units`, the units of the line the order holds or has taken):
 *
 * - `''`: the order never touched stock (created by an admin, or before stock states existed);
 * - `held`: reserved at checkout (`stock_on_hold`), not sold yet;
 * - `taken`: sold (`stock_quantity` went down);
 * - `released`: given back.
 *
 * Every transition is one conditional update of `stock_state` before any stock moves, so of two concurrent calls
 * (two cancels, a cancel and a payment) one moves the stock and the other finds nothing to do. Call inside the
 * caller's transaction; a 422 (not enough stock) must roll it back.
 */
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import type { AfterCommit } from '../../core/db';
import { AppError, fail } from '../../core/errors';
import { adjustStock, holdStock, releaseStock } from '../products/stock';
import { SETTLED_PAYMENT_STATUSES } from './state';

export type StockState = '' | 'held' | 'taken' | 'released';

const ORDERS = 'store_orders';
const ITEMS = 'store_order_items';

interface StockLine {
  variation_id: number;
  quantity: number;
  stock_units: number;
}

/** Moves the order from `from` to `to`; false when it is not in `from` (another call got there first). */
async function transition(trx: Knex.Transaction, orderId: number, from: StockState, to: StockState): Promise<boolean> {
  return (await trx(ORDERS).where({ id: orderId, stock_state: from }).update({ stock_state: to })) > 0;
}

/** The order's lines whose variation still exists (a deleted variation's stock is gone with it). */
async function linesOf(trx: Knex.Transaction, orderId: number): Promise<StockLine[]> {
  const rows = (await trx(`${ITEMS} as i`)
    .join('store_product_variations as v', 'v.id', 'i.variation_id')
    .where('i.order_id', orderId)
    .select('i.variation_id', 'i.quantity', 'i.stock_units')) as Array<Record<keyof StockLine, number | string>>;
  return rows.map((row) => ({
    variation_id: Number(row.variation_id),
    quantity: Number(row.quantity),
    stock_units: Number(row.stock_units),
  }));
}

/**
 * Units per variation, in variation id order: one stock update per variation, and every transaction locks
 * variations in the same order, so parallel checkouts cannot deadlock on them.
 */
function perVariation(lines: StockLine[], units: (line: StockLine) => number): Array<[number, number]> {
  const totals = new Map<number, number>();
  for (const line of lines) totals.set(line.variation_id, (totals.get(line.variation_id) ?? 0) + units(line));
  return [...totals].filter(([, total]) => total > 0).sort(([a], [b]) => a - b);
}

/** Records the units the lines of `managed` variations now hold or took: their quantity (the others stay at 0). */
async function recordUnits(trx: Knex.Transaction, orderId: number, managed: number[]): Promise<void> {
  if (managed.length)
    await trx(ITEMS)
      .where({ order_id: orderId })
      .whereIn('variation_id', managed)
      .update({ stock_units: trx.ref('quantity') });
}

/** The order holds or took nothing any more. */
async function clearUnits(trx: Knex.Transaction, orderId: number): Promise<void> {
  await trx(ITEMS).where({ order_id: orderId }).whereNot('stock_units', 0).update({ stock_units: 0 });
}

/** How an order line names its variation in messages, as the cart does: "Product - Variation" (or the product alone). */
async function lineLabel(trx: Knex.Transaction, orderId: number, variationId: number): Promise<string> {
  const item = (await trx(ITEMS).where({ order_id: orderId, variation_id: variationId }).first('post_title', 'title')) as
    { post_title: string; title: string } | undefined;
  if (!item) return '';
  return item.title && item.title !== item.post_title ? `${item.post_title} - ${item.title}` : item.post_title;
}

async function holdLines(trx: Knex.Transaction, ctx: Ctx, orderId: number, lines: StockLine[]): Promise<void> {
  const managed: number[] = [];
  for (const [variationId, quantity] of perVariation(lines, (line) => line.quantity)) {
    try {
      if ((await holdStock(trx, ctx, variationId, quantity)).manage_stock) managed.push(variationId);
    } catch (error) {
      const label = error instanceof AppError && error.code === 'invalid_state' ? await lineLabel(trx, orderId, variationId) : '';
      if (label) throw fail('invalid_state', `Insufficient stock for ${label}.`, { status: 422 });
      throw error;
    }
  }
  await recordUnits(trx, orderId, managed);
}

async function takeLines(trx: Knex.Transaction, ctx: Ctx, orderId: number, lines: StockLine[], afterCommit: AfterCommit): Promise<void> {
  const managed: number[] = [];
  for (const [variationId, quantity] of perVariation(lines, (line) => line.quantity)) {
    if ((await adjustStock(trx, ctx, variationId, -quantity, afterCommit)).manage_stock) managed.push(variationId);
  }
  await recordUnits(trx, orderId, managed);
}

async function readState(trx: Knex.Transaction, orderId: number): Promise<{ stock_state: StockState; payment_status: string }> {
  const row = (await trx(ORDERS).where({ id: orderId }).first('stock_state', 'payment_status')) as
    { stock_state: StockState; payment_status: string } | undefined;
  if (!row) throw fail('not_found', 'Order not found', { status: 404 });
  return row;
}

/**
 * Checkout reserves the order's stock: every line of a managed variation is put on hold, and the order becomes
 * `held`. Not enough stock is 422 `invalid_state` "Insufficient stock for <Product - Variation>." (the first short line) and
 * the caller rolls back. Only an order that holds nothing may hold (`''`, or `released` when an order is placed
 * again): to change a held order's lines, release its stock first.
 */
export async function holdOrderStock(trx: Knex.Transaction, ctx: Ctx, orderId: number): Promise<void> {
  if (!(await transition(trx, orderId, '', 'held')) && !(await transition(trx, orderId, 'released', 'held'))) {
    const { stock_state } = await readState(trx, orderId);
    throw new Error(`Order #${orderId} cannot hold stock: its stock is ${stock_state}; release it first.`);
  }
  await holdLines(trx, ctx, orderId, await linesOf(trx, orderId));
}

/**
 * The order was paid: what it held is sold (`held` → `taken`: each hold released and the stock taken, which cannot
 * fall short since the units were reserved). Any other state is left: an order that never held stock (created by an
 * admin) keeps today's behaviour of not touching stock when paid.
 */
export async function takeOrderStock(trx: Knex.Transaction, ctx: Ctx, orderId: number, afterCommit: AfterCommit): Promise<void> {
  if (!(await transition(trx, orderId, 'held', 'taken'))) return;
  const unmanaged: number[] = [];
  for (const [variationId, units] of perVariation(await linesOf(trx, orderId), (line) => line.stock_units)) {
    await releaseStock(trx, ctx, variationId, units);
    if (!(await adjustStock(trx, ctx, variationId, -units, afterCommit)).manage_stock) unmanaged.push(variationId);
  }
  // A variation that stopped managing stock since the hold took nothing: nothing of it is to be given back later.
  if (unmanaged.length) await trx(ITEMS).where({ order_id: orderId }).whereIn('variation_id', unmanaged).update({ stock_units: 0 });
}

export interface ReleaseOptions {
  /** Release holds only; taken stock stays sold (a cancel without `manage_stock`). */
  holdsOnly?: boolean;
  /**
   * An order that never recorded its stock (`''`) is treated as taken, and its lines' quantities go back (the bulk
   * cancel with `manage_stock` has always done so).
   */
  restockUntracked?: boolean;
}

/**
 * Gives the order's stock back: `held` → the holds are released; `taken` → the units go back into stock; then the
 * order is `released`. Returns the state it released, or null when there was nothing to give back.
 */
export async function releaseOrderStock(
  trx: Knex.Transaction,
  ctx: Ctx,
  orderId: number,
  afterCommit: AfterCommit,
  options: ReleaseOptions = {},
): Promise<StockState | null> {
  if (await transition(trx, orderId, 'held', 'released')) {
    for (const [variationId, units] of perVariation(await linesOf(trx, orderId), (line) => line.stock_units)) await releaseStock(trx, ctx, variationId, units);
    await clearUnits(trx, orderId);
    return 'held';
  }
  if (options.holdsOnly) return null;
  const from: StockState | null = (await transition(trx, orderId, 'taken', 'released'))
    ? 'taken'
    : options.restockUntracked && (await transition(trx, orderId, '', 'released'))
      ? ''
      : null;
  if (from === null) return null;
  const units = from === 'taken' ? (line: StockLine) => line.stock_units : (line: StockLine) => line.quantity;
  for (const [variationId, quantity] of perVariation(await linesOf(trx, orderId), units)) await adjustStock(trx, ctx, variationId, quantity, afterCommit);
  await clearUnits(trx, orderId);
  return from;
}

/**
 * An order leaves `canceled` and its stock is wanted again (bulk status change with `manage_stock`): a paid order
 * takes it (`taken`), an unpaid one holds it again (`held`) until it is paid, like a checkout. An order that never
 * recorded its stock (`''`) takes its lines' quantities, as the bulk action always did. Not enough stock is 422 and
 * the caller rolls back. Returns the new state, or null when the order already holds or took its stock.
 */
export async function reclaimOrderStock(trx: Knex.Transaction, ctx: Ctx, orderId: number, afterCommit: AfterCommit): Promise<StockState | null> {
  const { stock_state, payment_status } = await readState(trx, orderId);
  if (stock_state !== '' && stock_state !== 'released') return null;
  const paid = (SETTLED_PAYMENT_STATUSES as readonly string[]).includes(payment_status);
  const to: StockState = stock_state === '' || paid ? 'taken' : 'held';
  if (!(await transition(trx, orderId, stock_state, to))) return null;
  const lines = await linesOf(trx, orderId);
  if (to === 'taken') await takeLines(trx, ctx, orderId, lines, afterCommit);
  else await holdLines(trx, ctx, orderId, lines);
  return to;
}
