import type { Knex } from 'knex';
import { dialect, escapeLike } from '../../core/db';
import { applySearch, parseSearch, type SearchSpec, type SearchTerm } from '../../core/search';
import type { FilterContext } from '../customers/filters';
import type { SubscriptionListInput, SubscriptionListView, SubscriptionScope } from './admin-read-schemas';
import { applySubscriptionFilters, parseSubscriptionFilters } from './filters';

/**
 * The `where` clauses of the subscription list (`GET /subscriptions`), on `store_subscriptions as s`: the view, scopes,
 * search and advanced filters. One source for the list and the data export, so an export of `search_results` holds
 * exactly the subscriptions the list shows for the same filters.
 */

/* ------------------------------------------------------------------ views and scopes */

/** A view is one status, read from the `(status, id)` index backwards; `all` (or none) is every subscription. */
function applySubscriptionView(query: Knex.QueryBuilder, view: SubscriptionListView | undefined): void {
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
export const SUBSCRIPTION_SORTABLE: Record<string, string> = Object.fromEntries(
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

/** The `search` of the subscription list: `#id`, the operator syntax on the subscription's columns, or free text. */
const subscriptionSearch = (db: Knex): SearchSpec => ({ columns: SEARCH_COLUMNS, idColumn: 's.id', text: (query, text) => textMatch(query, db, text) });

/* ------------------------------------------------------------------ the filters of one request */

/** The parameters of `GET /subscriptions` that narrow the list. */
export type SubscriptionFilterInput = Pick<SubscriptionListInput, 'active_view' | 'scopes' | 'search' | 'filter_type' | 'advanced_filters'>;

export interface SubscriptionListFilter {
  /** Adds the conditions to a query on `store_subscriptions as s`. */
  apply(query: Knex.QueryBuilder): void;
  /** The view narrowing the list (none for `all`). */
  view: Exclude<SubscriptionListView, 'all'> | undefined;
  /** Whether anything beyond the view narrows the list (the plain list and the views count from a cache). */
  narrowed: boolean;
}

/** Checks the filters (a 422 naming `advanced_filters` for a value the list refuses) and returns their conditions. */
export function subscriptionListFilter(db: Knex, input: SubscriptionFilterInput, at: FilterContext): SubscriptionListFilter {
  const groups = input.filter_type === 'advanced' ? parseSubscriptionFilters(input.advanced_filters, at) : [];
  const term = statusTerm(parseSearch(input.search));
  const scopes = [...new Set(input.scopes ?? [])];
  const view = input.active_view === 'all' ? undefined : input.active_view;
  return {
    apply(query) {
      applySubscriptionView(query, view);
      for (const scope of scopes) SCOPES[scope](query);
      applySearch(query, term, subscriptionSearch(db), at.zone);
      applySubscriptionFilters(query, db, groups, at);
    },
    view,
    narrowed: Boolean(scopes.length || term.kind !== 'empty' || groups.some((g) => g.length)),
  };
}
