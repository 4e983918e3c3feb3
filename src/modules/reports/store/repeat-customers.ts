import type { Ctx } from '../../../core/context';
import { parseJson } from '../../../core/db';
import { invalid } from '../../../core/errors';
import { paginate, type Page } from '../../../core/page';
import { MAX_INT } from '../../../core/schema';
import { fullName } from '../../customers/presenter';
import { namedParams } from './inputs';

const PER_PAGE = { min: 1, max: 200, default: 10 };

export interface RepeatCustomer {
  id: number;
  full_name: string;
  email: string;
  purchase_count: number;
  /** Cents, over every currency (see `purchase_value` for each). */
  ltv: number;
  aov: number;
  purchase_value: Record<string, number>;
  first_purchase_date: string | null;
  last_purchase_date: string | null;
}

interface CustomerRow {
  id: number | string;
  first_name: string;
  last_name: string;
  email: string;
  purchase_count: number | string;
  ltv: number | string;
  aov: number | string;
  purchase_value: unknown;
  first_purchase_date: string | null;
  last_purchase_date: string | null;
}

/** A whole number parameter within bounds, or a 422 naming it; absent or empty gives the fallback. */
function wholeNumber(params: Record<string, unknown>, name: string, min: number, max: number, fallback: number): number {
  const value = params[name];
  if (value === undefined || value === '') return fallback;
  const number = typeof value === 'string' && /^\d{1,10}$/.test(value.trim()) ? Number(value) : NaN;
  if (!(number >= min && number <= max)) throw invalid(`params.${name}`, 'between', `Invalid ${name}: expected a whole number from ${min} to ${max}.`);
  return number;
}

function present(row: CustomerRow): RepeatCustomer {
  return {
    id: Number(row.id),
    full_name: fullName(row),
    email: row.email,
    purchase_count: Number(row.purchase_count),
    ltv: Number(row.ltv),
    aov: Number(row.aov),
    purchase_value: parseJson<Record<string, number>>(row.purchase_value, {}),
    first_purchase_date: row.first_purchase_date,
    last_purchase_date: row.last_purchase_date,
  };
}

/**
 * `GET /reports/search-repeat-customer`: customers who bought more than once, most purchases first (ties: the newer
 * customer first), read backwards along the index `(purchase_count, id)`. The figures are the customers' own
 * purchase statistics, over every currency and mode.
 */
export async function repeatCustomers(ctx: Ctx, query: Record<string, unknown>): Promise<{ repeat_customers: Page<RepeatCustomer> }> {
  const params = namedParams(query);
  const perPage = wholeNumber(params, 'per_page', PER_PAGE.min, PER_PAGE.max, PER_PAGE.default);
  const page = wholeNumber(params, 'current_page', 1, MAX_INT, 1);
  const rows = ctx
    .db('store_customers')
    .where('purchase_count', '>', 1)
    .orderBy([
      { column: 'purchase_count', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select('id', 'first_name', 'last_name', 'email', 'purchase_count', 'ltv', 'aov', 'purchase_value', 'first_purchase_date', 'last_purchase_date');
  const result = await paginate<CustomerRow>(rows, page, perPage);
  return { repeat_customers: { ...result, data: result.data.map(present) } };
}
