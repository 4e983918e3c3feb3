import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { dialect, escapeLike } from '../../core/db';
import { invalid } from '../../core/errors';
import { ownEntry } from '../../core/lookup';
import { pageOf, readWindow, totalCaches, type Page } from '../../core/page';
import { applySearch, parseSearch, type SearchSpec, type SearchTerm } from '../../core/search';
import { getStoreSettings } from '../settings/store-settings';
import type { SubscriptionListInput, SubscriptionListView, SubscriptionScope } from './admin-read-schemas';
import { loadSubscriptionRelations } from './detail';
import { applySubscriptionFilters, parseSubscriptionFilters } from './filters';
import { presentSubscription, type SubscriptionRow } from './presenter';
import type { Subscription } from './types';

/* ------------------------------------------------------------------ views and scopes */

/** A view is one status, read from the `(status, id)` index backwards; `all` (or none) is every subscription. */
function applyView(query: Knex.QueryBuilder, view: SubscriptionListView | undefined): void {
  if (view && view !== 'all') query.where('s.status', view);
}

const SCOPES: Record<SubscriptionScope, (q: Knex.QueryBuilder) => void> = {
  installments: (q) => q.where('s.bill_times', '>', 0),
  unlimited: (q) => q.where('s.bill_times', 0),
  automatic: (q) => q.where('s.collection_method', 'automatic'),
  with_vendor_id: (q) => q.where('s.vendor_subscription_id', '<>', ''),
};

/* ------------------------------------------------------------------ sort and search */

const COLUMNS = {
  integer: ['id', 'parent_order_id', 'customer_id', 'product_id', 'variation_id', 'quantity', 'recurring_amount', 'bill_times', 'bill_count'],
  string: [
    'uuid',
    'status',
    'item_name',
    'vendor_subscription_id',
    'vendor_customer_id',
    'vendor_plan_id',
    'collection_method',
    'current_payment_method',
    'billing_interval',
    'currency',
  ],
  date: ['next_billing_date', 'trial_ends_at', 'canceled_at', 'expire_at', 'created_at', 'updated_at'],
} as const;

/** `sort_by` may name the fillable subscription columns (plus id and the timestamps); anything else sorts by id. */
const SORTABLE: Record<string, string> = Object.fromEntries(
  [...COLUMNS.integer, ...COLUMNS.string, 'recurring_tax_total', 'signup_fee', 'trial_days', ...COLUMNS.date].map((c) => [c, `s.${c}`]),
);

/** Columns of the operator syntax (`ID = 5`, `bill_count > 2`, `id :: 1-10`, `item_name ~ pro`, `next_billing_date < 2026-12-01`). */
const SEARCH_COLUMNS: SearchSpec['columns'] = Object.fromEntries(
  (Object.keys(COLUMNS) as Array<keyof typeof COLUMNS>).flatMap((kind) => COLUMNS[kind].map((c) => [c, { column: `s.${c}`, kind }])),
);

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]*$/;

/**
 * `text` as the start of a vendor id, matched case-sensitively on both databases as the ids compare on MySQL/MariaDB
 * (`utf8mb4_bin`): `LIKE` there, `GLOB` on SQLite (whose `LIKE` ignores case), each served by the column's index.
 */
function vendorPrefix(db: Knex, column: string, text: string): [string, string[]] {
  if (dialect(db) === 'mysql') return [`${column} like ? escape '!'`, [`${escapeLike(text)}%`]];
  return [`${column} glob ?`, [`${text.replace(/[*?[]/g, '[$&]')}*`]];
}

/**
 * The spec's search rules for text that is neither `#id` nor `column <op> value`: an email shape finds the customer's
 * email by its start; `canceled`/`cancelled` the canceled status; any other text the start of the item name, a vendor
 * id, the payment method or the billing interval, and a number the parent order id or `bill_count` exactly. Each part
 * is an index range; they are united in a derived table the main query joins by primary key (one semi-join).
 */
function textMatch(query: Knex.QueryBuilder, db: Knex, text: string): void {
  if (/^cancell?ed$/i.test(text)) {
    query.where('s.status', 'canceled');
    return;
  }
  const prefix = `${escapeLike(text)}%`;
  const branches: Knex.QueryBuilder[] = [];
  if (EMAIL_SHAPE.test(text)) {
    branches.push(
      db('store_customers as sc')
        .join('store_subscriptions as se', 'se.customer_id', 'sc.id')
        .select('se.id')
        .whereRaw(`sc.email like ? escape '!'`, [prefix.toLowerCase()]),
    );
  } else {
    for (const column of ['item_name', 'current_payment_method', 'billing_interval']) {
      branches.push(db(`store_subscriptions as s_${column}`).select(`s_${column}.id`).whereRaw(`s_${column}.${column} like ? escape '!'`, [prefix]));
    }
    for (const column of ['vendor_subscription_id', 'vendor_customer_id', 'vendor_plan_id']) {
      branches.push(
        db(`store_subscriptions as s_${column}`)
          .select(`s_${column}.id`)
          .whereRaw(...vendorPrefix(db, `s_${column}.${column}`, text)),
      );
    }
    if (/^\d{1,10}$/.test(text)) {
      branches.push(db('store_subscriptions as sp').select('sp.id').where('sp.parent_order_id', Number(text)));
      branches.push(db('store_subscriptions as sb').select('sb.id').where('sb.bill_count', Number(text)));
    }
  }
  const [first, ...rest] = branches;
  const united = rest.length ? first.unionAll(rest).as('matches') : first.as('matches');
  query.whereIn('s.id', db.queryBuilder().select('matches.id').from(united));
}

/** Statuses are lower-case words, and `cancelled` is the spec's synonym of `canceled` in searches: `status = Cancelled`. */
function statusTerm(term: SearchTerm): SearchTerm {
  if (term.kind !== 'condition' || term.column !== 'status') return term;
  const status = (value: string) => value.toLowerCase().replace(/^cancelled$/, 'canceled');
  return { ...term, value: status(term.value), ...(term.to === undefined ? {} : { to: status(term.to) }) };
}

const subscriptionSearch = (db: Knex): SearchSpec => ({ columns: SEARCH_COLUMNS, idColumn: 's.id', text: (query, text) => textMatch(query, db, text) });

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
  const filterCtx = { zone: ctx.tz, now: ctx.clock.now() };
  const groups = input.filter_type === 'advanced' ? parseSubscriptionFilters(input.advanced_filters, filterCtx) : [];
  const term = statusTerm(parseSearch(input.search));
  const scopes = [...new Set(input.scopes ?? [])];
  const view = input.active_view === 'all' ? undefined : input.active_view;

  const filter = (q: Knex.QueryBuilder) => {
    applyView(q, view);
    for (const scope of scopes) SCOPES[scope](q);
    applySearch(q, term, subscriptionSearch(ctx.db), ctx.tz);
    applySubscriptionFilters(q, ctx.db, groups, filterCtx);
  };
  const narrowed = Boolean(scopes.length || term.kind !== 'empty' || groups.some((g) => g.length));
  const includes = Boolean((narrowed || view) && input.include_ids?.length);
  const query = ctx.db('store_subscriptions as s');
  // Flat conditions unless `include_ids` must be OR-ed in: the plain list and the views then count from an index.
  if (includes) query.where(filter).orWhereIn('s.id', input.include_ids ?? []);
  else filter(query);

  const sort = ownEntry(SORTABLE, String(input.sort_by ?? '')) ?? 's.id';
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
