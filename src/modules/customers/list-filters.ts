import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { escapeLike } from '../../core/db';
import { applySearch, nameSplits, parseSearch, type SearchSpec } from '../../core/search';
import { PURCHASE_PAYMENT_STATUSES } from '../order-records/purchases';
import { applyAdvancedFilters, fullNameSql, parseAdvancedFilters, type FilterContext, type FilterProperty } from './filters';
import type { CustomerListQuery } from './schemas';
import { CUSTOMER_STATUSES } from './types';

/**
 * The filters of the customer list (`GET /customers`) as query builders on `store_customers as c`, shared by the list
 * and the customer export (`search_results` / `current_page` scopes), so both narrow with the same `where` clauses.
 */

/** Columns `sort_by` may name: the fillable ones, plus id and the timestamps. */
export const CUSTOMER_SORTABLE: Record<string, string> = Object.fromEntries(
  [
    'id',
    'user_id',
    'email',
    'first_name',
    'last_name',
    'status',
    'purchase_count',
    'ltv',
    'aov',
    'first_purchase_date',
    'last_purchase_date',
    'country',
    'city',
    'state',
    'postcode',
    'created_at',
    'updated_at',
  ].map((c) => [c, `c.${c}`]),
);

const integer = (column: string) => ({ column: `c.${column}`, kind: 'integer' as const });
const string = (column: string) => ({ column: `c.${column}`, kind: 'string' as const });
const date = (column: string) => ({ column: `c.${column}`, kind: 'date' as const });

/** The `search` of the customer list: `#id`, the operator syntax on these columns, or free text. */
export const CUSTOMER_SEARCH: SearchSpec = {
  columns: {
    id: integer('id'),
    user_id: integer('user_id'),
    ltv: integer('ltv'),
    aov: integer('aov'),
    purchase_count: integer('purchase_count'),
    email: string('email'),
    first_name: string('first_name'),
    last_name: string('last_name'),
    status: string('status'),
    country: string('country'),
    city: string('city'),
    state: string('state'),
    postcode: string('postcode'),
    created_at: date('created_at'),
    updated_at: date('updated_at'),
    first_purchase_date: date('first_purchase_date'),
    last_purchase_date: date('last_purchase_date'),
  },
  idColumn: 'c.id',
  // Index-friendly: the id (when the text is a number), or the start of the email, first name, last name or full
  // name ("Jane Do" = first name "Jane" and a last name starting "Do"). `email ~ x` finds text anywhere.
  text: (query, text) =>
    query.where((q) => {
      if (/^\d{1,15}$/.test(text)) q.where('c.id', Number(text));
      const prefix = `${escapeLike(text)}%`;
      q.orWhereRaw(`c.email like ? escape '!'`, [prefix.toLowerCase()])
        .orWhereRaw(`c.first_name like ? escape '!'`, [prefix])
        .orWhereRaw(`c.last_name like ? escape '!'`, [prefix]);
      for (const [first, last] of nameSplits(text)) {
        q.orWhere((name) =>
          name.whereRaw(`c.first_name like ? escape '!'`, [escapeLike(first)]).whereRaw(`c.last_name like ? escape '!'`, [`${escapeLike(last)}%`]),
        );
      }
    }),
};

/** The advanced filters of the customer list (see filters.ts for the format). */
export const CUSTOMER_FILTERS: Record<string, FilterProperty> = {
  name: { kind: 'text', sql: (db) => fullNameSql(db, 'c') },
  first_name: { kind: 'text', sql: () => 'c.first_name' },
  last_name: { kind: 'text', sql: () => 'c.last_name' },
  email: { kind: 'text', sql: () => 'c.email' },
  country: { kind: 'text', sql: () => 'c.country' },
  city: { kind: 'text', sql: () => 'c.city' },
  ltv: { kind: 'number', sql: () => 'c.ltv' },
  aov: { kind: 'number', sql: () => 'c.aov' },
  purchase_count: { kind: 'number', sql: () => 'c.purchase_count' },
  first_purchase_date: { kind: 'date', sql: () => 'c.first_purchase_date' },
  last_purchase_date: { kind: 'date', sql: () => 'c.last_purchase_date' },
  created_at: { kind: 'date', sql: () => 'c.created_at' },
  status: { kind: 'choice', sql: () => 'c.status', choices: CUSTOMER_STATUSES },
  labels: {
    kind: 'ids',
    related: (sub, ids) =>
      sub
        .select('lr.id')
        .from('store_label_relations as lr')
        .where('lr.object_type', 'customer')
        .whereRaw('?? = ??', ['lr.object_id', 'c.id'])
        .whereIn('lr.label_id', ids),
  },
  /** Variations the customer bought (in a paid, partially paid or (partially) refunded order). */
  order_items: {
    kind: 'ids',
    related: (sub, ids) =>
      sub
        .select('po.id')
        .from('store_orders as po')
        .join('store_order_items as pi', 'pi.order_id', 'po.id')
        .whereRaw('?? = ??', ['po.customer_id', 'c.id'])
        .whereIn('po.payment_status', [...PURCHASE_PAYMENT_STATUSES])
        .whereIn('pi.variation_id', ids),
  },
  /** Products the customer bought, by product id. */
  products: {
    kind: 'ids',
    related: (sub, ids) =>
      sub
        .select('pp.id')
        .from('store_orders as pp')
        .join('store_order_items as ppi', 'ppi.order_id', 'pp.id')
        .whereRaw('?? = ??', ['pp.customer_id', 'c.id'])
        .whereIn('pp.payment_status', [...PURCHASE_PAYMENT_STATUSES])
        .whereIn('ppi.post_id', ids),
  },
};

/** The parameters of `GET /customers` that narrow the list. */
export type CustomerFilterInput = Pick<Static<typeof CustomerListQuery>, 'active_view' | 'search' | 'filter_type' | 'advanced_filters'>;

export interface CustomerListFilter {
  /** Adds the conditions to a query on `store_customers as c`. */
  apply(query: Knex.QueryBuilder): void;
  /** Whether any condition narrows the list (the unfiltered list counts from a cache). */
  narrowed: boolean;
}

/** Checks the filters (a 422 naming `advanced_filters` for a value the list refuses) and returns their conditions. */
export function customerListFilter(db: Knex, input: CustomerFilterInput, at: FilterContext): CustomerListFilter {
  const groups = input.filter_type === 'advanced' ? parseAdvancedFilters(input.advanced_filters, CUSTOMER_FILTERS, at) : [];
  const term = parseSearch(input.search);
  return {
    apply(query) {
      if (input.active_view) query.where('c.status', input.active_view);
      applySearch(query, term, CUSTOMER_SEARCH, at.zone);
      applyAdvancedFilters(query, db, groups, CUSTOMER_FILTERS, at);
    },
    narrowed: Boolean(input.active_view || term.kind !== 'empty' || groups.length),
  };
}
