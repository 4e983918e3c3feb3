import type { Ctx } from '../../core/context';
import { invalid } from '../../core/errors';
import { ownEntry } from '../../core/lookup';
import { pageOf, readWindow, totalCaches, type Page } from '../../core/page';
import { getStoreSettings } from '../settings/store-settings';
import type { SubscriptionListInput } from './admin-read-schemas';
import { loadSubscriptionRelations } from './detail';
import { SUBSCRIPTION_SORTABLE, subscriptionListFilter } from './list-filters';
import { presentSubscription, type SubscriptionRow } from './presenter';
import type { Subscription } from './types';

/* ------------------------------------------------------------------ select */

/** The fields of a presented subscription `select` may name. */
const SELECTABLE: readonly string[] = Object.keys(presentSubscription({}));

function selectedColumns(select: string[] | undefined): string[] | null {
  const columns = [...new Set((select ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()))].filter(Boolean);
  if (!columns.length) return null;
  const unknown = columns.filter((c) => !SELECTABLE.includes(c));
  if (unknown.length) throw invalid('select', 'in', `The select field names unknown columns: ${unknown.join(', ')}.`);
  return columns.includes('id') ? columns : ['id', ...columns];
}

function pick(subscription: Subscription, columns: readonly string[]): Record<string, unknown> {
  const source = subscription as unknown as Record<string, unknown>;
  return Object.fromEntries(columns.map((c) => [c, source[c]]));
}

/* ------------------------------------------------------------------ totals */

/** Unfiltered totals per database and view, kept 5 s (see TotalCache). */
const totalCache = totalCaches();

/** Changes made by this process that can move a subscription into or out of a view (deleting an order deletes its subscriptions). */
const subscriptionWrites = (ctx: Ctx) =>
  ctx.hooks.did('store/subscription/created') + ctx.hooks.did('store/subscription/status_changed') + ctx.hooks.did('store/order/deleted');

/* ------------------------------------------------------------------ the list */

/** `GET /subscriptions`: one page of subscriptions with the requested relations. */
export async function listSubscriptions(ctx: Ctx, input: SubscriptionListInput): Promise<Page<Subscription | Record<string, unknown>>> {
  const columns = selectedColumns(input.select);
  const filter = subscriptionListFilter(ctx.db, input, { zone: ctx.tz, now: ctx.clock.now() });
  const { narrowed, view } = filter;
  const includes = Boolean((narrowed || view) && input.include_ids?.length);
  const query = ctx.db('store_subscriptions as s');
  // Flat conditions unless `include_ids` must be OR-ed in: the plain list and the views then count from an index.
  if (includes) query.where((q) => filter.apply(q)).orWhereIn('s.id', input.include_ids ?? []);
  else filter.apply(query);

  const sort = ownEntry(SUBSCRIPTION_SORTABLE, String(input.sort_by ?? '')) ?? 's.id';
  const direction = String(input.sort_type).toLowerCase() === 'asc' ? 'asc' : 'desc';
  query.orderBy(sort, direction);
  if (sort !== 's.id') query.orderBy('s.id', direction);

  const { subscriptions_per_page } = await getStoreSettings(ctx.host);
  const { size, offset } = readWindow(input, { min: 1, max: 200, default: Math.min(200, Math.max(1, subscriptions_per_page)) });
  const rows = (await query.clone().select('s.*').limit(size).offset(offset)) as SubscriptionRow[];
  const count = async () => {
    const counted = (await query.clone().clear('order').count({ total: '*' }).first()) as { total: number | string } | undefined;
    return Number(counted?.total ?? 0);
  };
  // A short page that is not past the end is its own total; unfiltered lists and views count once per 5 s (and per write).
  const total =
    rows.length < size && (offset === 0 || rows.length > 0)
      ? offset + rows.length
      : narrowed || includes
        ? await count()
        : await totalCache(ctx.db, view ?? '').get(subscriptionWrites(ctx), ctx.clock.now().getTime(), count);

  const subscriptions = rows.map(presentSubscription);
  const related = input.with?.length
    ? await loadSubscriptionRelations(
        ctx,
        subscriptions.map((s) => s.id),
        input.with,
      )
    : null;
  const data = subscriptions.map((s) => ({ ...(columns ? pick(s, columns) : s), ...related?.(s.id) }));
  const page = pageOf(data, total, Math.floor(offset / size) + 1, size);
  return { ...page, from: data.length ? offset + 1 : null, to: data.length ? offset + data.length : null };
}
