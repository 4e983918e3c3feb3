import type { Ctx } from '../../core/context';
import { invalid } from '../../core/errors';
import { ownEntry } from '../../core/lookup';
import { pageOf, readPage, totalCaches, type Page } from '../../core/page';
import { presentOrder, type Order, type OrderRow } from '../order-records/presenter';
import { getStoreSettings } from '../settings/store-settings';
import { loadRelations } from './detail';
import { ORDER_SORTABLE, orderListFilter } from './list-filters';
import type { OrderListInput } from './read-schemas';

/** Unfiltered totals per database and view, kept 5 s (see TotalCache). */
const totalCache = totalCaches();

/** Changes made by this process that can move an order into or out of a view (or the list). */
const orderWrites = (ctx: Ctx) =>
  ctx.hooks.did('store/order/created') +
  ctx.hooks.did('store/order/deleted') +
  ctx.hooks.did('store/order/updated') +
  ctx.hooks.did('store/order/status_changed') +
  ctx.hooks.did('store/order/payment_status_changed');

/** The fields of a presented order `select` may name. */
const SELECTABLE: readonly string[] = Object.keys(ORDER_SORTABLE).concat(['uuid', 'note', 'fee_total']);

function selectedColumns(select: string[] | undefined): string[] | null {
  const columns = [...new Set((select ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()))].filter(Boolean);
  if (!columns.length) return null;
  const unknown = columns.filter((c) => !SELECTABLE.includes(c));
  if (unknown.length) throw invalid('select', 'in', `The select field names unknown columns: ${unknown.join(', ')}.`);
  return columns.includes('id') ? columns : ['id', ...columns];
}

const toInt = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d{1,15}\s*$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) ? n : null;
};

/** Rows `offset`… of the page size: `limit`/`offset` when given, else `page`/`per_page` (clamped, default from settings). */
async function pageWindow(ctx: Ctx, input: OrderListInput): Promise<{ size: number; offset: number }> {
  const { orders_per_page } = await getStoreSettings(ctx.host);
  const limits = { min: 1, max: 200, default: Math.min(200, Math.max(1, orders_per_page)) };
  const limit = toInt(input.limit);
  if (limit !== null) return { size: Math.min(limits.max, Math.max(1, limit)), offset: Math.max(0, toInt(input.offset) ?? 0) };
  const { page, perPage } = readPage(input, limits);
  return { size: perPage, offset: Math.max(0, toInt(input.offset) ?? (page - 1) * perPage) };
}

/** `GET /orders`: one page of orders with the requested relations. */
export async function listOrders(ctx: Ctx, input: OrderListInput): Promise<Page<Order | Record<string, unknown>>> {
  const columns = selectedColumns(input.select);
  const { apply: filter, narrowed } = orderListFilter(ctx.db, input, { zone: ctx.tz, now: ctx.clock.now() });
  const includes = Boolean((narrowed || input.active_view) && input.include_ids?.length);
  const query = ctx.db('store_orders as o');
  // Flat conditions unless `include_ids` must be OR-ed in: the plain list and the views then count from an index.
  if (includes) query.where(filter).orWhereIn('o.id', input.include_ids ?? []);
  else filter(query);

  const sort = ownEntry(ORDER_SORTABLE, String(input.sort_by ?? '')) ?? 'o.id';
  const direction = String(input.sort_type).toLowerCase() === 'asc' ? 'asc' : 'desc';
  query.orderBy(sort, direction);
  if (sort !== 'o.id') query.orderBy('o.id', direction);

  const { size, offset } = await pageWindow(ctx, input);
  const rows = (await query.clone().select('o.*').limit(size).offset(offset)) as OrderRow[];
  const count = async () => {
    const counted = (await query.clone().clear('order').count({ total: '*' }).first()) as { total: number | string } | undefined;
    return Number(counted?.total ?? 0);
  };
  // A short first page is the whole answer; unfiltered lists and views count once per 5 s (and per write).
  const total =
    rows.length < size && (offset === 0 || rows.length > 0)
      ? offset + rows.length
      : narrowed || includes
        ? await count()
        : await totalCache(ctx.db, input.active_view ?? '').get(orderWrites(ctx), ctx.clock.now().getTime(), count);

  const related = await loadRelations(ctx, rows, input.with ?? []);
  const data = rows.map((row) => {
    const order = presentOrder(row);
    return { ...(columns ? pick(order, columns) : order), ...related(row) };
  });
  const page = pageOf(data, total, Math.floor(offset / size) + 1, size);
  return { ...page, from: data.length ? offset + 1 : null, to: data.length ? offset + data.length : null };
}

function pick(order: Order, columns: readonly string[]): Record<string, unknown> {
  const source = order as unknown as Record<string, unknown>;
  return Object.fromEntries(columns.map((c) => [c, source[c]]));
}
