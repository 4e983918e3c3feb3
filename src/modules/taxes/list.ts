import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { escapeLike } from '../../core/db';
import { invalid } from '../../core/errors';
import { ownEntry } from '../../core/lookup';
import { pageOf, readPage, totalCaches, type Page, type PageLimits } from '../../core/page';
import { applySearch, parseSearch, type SearchSpec } from '../../core/search';
import { applyAdvancedFilters, parseAdvancedFilters, type FilterContext, type FilterProperty } from '../customers/filters';
import { presentOrder, type OrderRow } from '../order-records/presenter';
import { presentRate } from '../tax-rates/presenter';
import type { TaxRate, TaxRateRow } from '../tax-rates/types';
import { presentTaxRecord } from './presenter';
import { TAX_FIELDS, type TaxListInput, type TaxRelation } from './schemas';
import type { TaxRecord, TaxRecordRow } from './types';

const VIEWS: Record<NonNullable<TaxListInput['active_view']>, (q: Knex.QueryBuilder) => void> = {
  filed: (q) => q.whereNotNull('t.filed_at'),
  not_filed: (q) => q.whereNull('t.filed_at'),
};

const column = (name: string, kind: 'integer' | 'date') => ({ column: `t.${name}`, kind });

/** Columns of the operator syntax (`id = 5`, `order_id > 100`, `total_tax >= 1000`, `created_at :: 2026-01-01 - 2026-03-31`). */
const SEARCH_COLUMNS: SearchSpec['columns'] = {
  id: column('id', 'integer'),
  order_id: column('order_id', 'integer'),
  tax_rate_id: column('tax_rate_id', 'integer'),
  shipping_tax: column('shipping_tax', 'integer'),
  order_tax: column('order_tax', 'integer'),
  total_tax: column('total_tax', 'integer'),
  filed_at: column('filed_at', 'date'),
  created_at: column('created_at', 'date'),
  updated_at: column('updated_at', 'date'),
};

/** Ids of the tax rates whose country, state, postcode or name starts with `text` (case-insensitive; a small table). */
async function ratesStartingWith(db: Knex, text: string): Promise<number[]> {
  const prefix = `${escapeLike(text)}%`;
  const rows = (await db('store_tax_rates')
    .where((q) => {
      for (const name of ['country', 'state', 'postcode', 'name']) q.orWhereRaw(`?? like ? escape '!'`, [name, prefix]);
    })
    .select('id')) as Array<{ id: number | string }>;
  return rows.map((row) => Number(row.id));
}

/**
 * Free text finds the records whose tax rate's country, state, postcode or name starts with it (`rateIds`, read
 * first); a number also finds that record id and the records of that order id. Starts, not "anywhere", as on the other
 * lists. The parts are record ids united in a derived table, each an index read (`tax_rate_id`, `id`, `order_id`);
 * the rate ids go in as values because MariaDB, given the rates as a subquery, plans for thousands of matches and
 * scans every record instead.
 */
function textMatch(db: Knex, text: string, rateIds: number[]): Knex.QueryBuilder {
  const branches: Knex.QueryBuilder[] = [];
  if (rateIds.length) branches.push(db('store_order_tax_rates as sm').select('sm.id').whereIn('sm.tax_rate_id', rateIds));
  if (/^\d{1,15}$/.test(text)) {
    branches.push(db('store_order_tax_rates as si').select('si.id').where('si.id', Number(text)));
    branches.push(db('store_order_tax_rates as so').select('so.id').where('so.order_id', Number(text)));
  }
  if (!branches.length) return db('store_order_tax_rates as sn').select('sn.id').whereRaw('1 = 0');
  const [first, ...rest] = branches;
  return rest.length ? db.queryBuilder().select('matches.id').from(first.unionAll(rest).as('matches')) : first;
}

const LIMITS: PageLimits = { min: 1, max: 200, default: 10 };

/** `sort_by` may name any record column but `meta` (ties broken by id); anything else sorts by id. */
const SORTABLE: Record<string, string> = Object.fromEntries(TAX_FIELDS.filter((f) => f !== 'meta').map((f) => [f, `t.${f}`]));

/* ------------------------------------------------------------------ advanced filters */

/** `filed_at` is `filed` or `not_filed`: a choice over whether the record has a filing time. */
const RECORD_PROPERTIES: Record<string, FilterProperty> = {
  filed_at: { kind: 'choice', sql: () => `(case when t.filed_at is null then 'not_filed' else 'filed' end)`, choices: ['filed', 'not_filed'] },
};

/** Properties of the record's tax rate: a condition holds when the record's rate satisfies it. */
const RATE_PROPERTIES: Record<string, FilterProperty> = {
  country: { kind: 'text', sql: () => 'fr.country' },
  state: { kind: 'text', sql: () => 'fr.state' },
  name: { kind: 'text', sql: () => 'fr.name' },
};

type Groups = ReturnType<typeof parseAdvancedFilters>;

/** Any group may match, every condition of a group must; rate conditions read `t.tax_rate_id in (rates satisfying it)`. */
function applyFilters(query: Knex.QueryBuilder, db: Knex, groups: Groups, ctx: FilterContext): void {
  query.where((outer) => {
    for (const group of groups.filter((g) => g.length)) {
      outer.orWhere((inner) => {
        for (const condition of group) {
          if (!Object.hasOwn(RATE_PROPERTIES, condition.property)) {
            applyAdvancedFilters(inner, db, [[condition]], RECORD_PROPERTIES, ctx);
            continue;
          }
          const rates = db('store_tax_rates as fr').select('fr.id');
          applyAdvancedFilters(rates, db, [[condition]], RATE_PROPERTIES, ctx);
          inner.whereIn('t.tax_rate_id', rates);
        }
      });
    }
  });
}

/* ------------------------------------------------------------------ relations and fields */

async function loadRelations(db: Knex, records: TaxRecord[], wanted: readonly TaxRelation[]): Promise<(record: TaxRecord) => Record<string, unknown>> {
  const unique = (ids: Array<number | null>) => [...new Set(ids.filter((id): id is number => id !== null))];
  const orders = new Map<number, ReturnType<typeof presentOrder>>();
  const rates = new Map<number, TaxRate>();
  if (wanted.includes('order') && records.length) {
    const rows = (await db('store_orders').whereIn('id', unique(records.map((r) => r.order_id)))) as OrderRow[];
    for (const row of rows) orders.set(Number(row.id), presentOrder(row));
  }
  if (wanted.includes('tax_rate') && records.some((r) => r.tax_rate_id !== null)) {
    const rows = (await db('store_tax_rates').whereIn('id', unique(records.map((r) => r.tax_rate_id)))) as TaxRateRow[];
    for (const row of rows) rates.set(Number(row.id), await presentRate(row));
  }
  return (record) => ({
    ...(wanted.includes('order') ? { order: orders.get(record.order_id) ?? null } : {}),
    ...(wanted.includes('tax_rate') ? { tax_rate: record.tax_rate_id === null ? null : (rates.get(record.tax_rate_id) ?? null) } : {}),
  });
}

function selectedFields(select: string[] | undefined): string[] | null {
  const fields = [...new Set((select ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()))].filter(Boolean);
  if (!fields.length) return null;
  const unknown = fields.filter((f) => !(TAX_FIELDS as readonly string[]).includes(f));
  if (unknown.length) throw invalid('select', 'in', `The select field names unknown fields: ${unknown.join(', ')}. Use: ${TAX_FIELDS.join(', ')}.`);
  return fields.includes('id') ? fields : ['id', ...fields];
}

/* ------------------------------------------------------------------ the list */

/** Unfiltered totals per database and view, kept 5 s (see TotalCache). */
const totalCache = totalCaches();

/** This process's writes that add records or move them between views. */
const taxWrites = (ctx: Ctx) =>
  ctx.hooks.did('store/order/paid') + ctx.hooks.did('store/order/refunded') + ctx.hooks.did('store/order/deleted') + ctx.hooks.did('store/taxes/filed');

/**
 * `GET /taxes`: one page of order tax records with the requested relations. A first page shorter than the page size
 * is its own total; the unfiltered list and each view are counted once per 5 s per process (and again after this
 * process paid, refunded or deleted an order or filed records); other filtered lists count every time.
 */
export async function listTaxRecords(ctx: Ctx, input: TaxListInput): Promise<Page<Record<string, unknown>>> {
  const fields = selectedFields(input.select);
  const filterCtx: FilterContext = { zone: ctx.tz, now: ctx.clock.now() };
  const groups = input.filter_type === 'advanced' ? parseAdvancedFilters(input.advanced_filters, { ...RECORD_PROPERTIES, ...RATE_PROPERTIES }, filterCtx) : [];
  const term = parseSearch(input.search);
  const spec = (text: SearchSpec['text']): SearchSpec => ({ columns: SEARCH_COLUMNS, idColumn: 't.id', text });
  // Which text (if any) the search looks for, as `applySearch` decides it (a condition on an unknown column is text too).
  const texts: string[] = [];
  applySearch(
    ctx.db.queryBuilder(),
    term,
    spec((_q, text) => texts.push(text)),
    ctx.tz,
  );
  const rateIds = texts.length ? await ratesStartingWith(ctx.db, texts[0]) : [];
  const search = spec((q, text) => q.whereIn('t.id', textMatch(ctx.db, text, rateIds)));

  const narrowed = term.kind !== 'empty' || groups.some((g) => g.length);
  const filter = (q: Knex.QueryBuilder) => {
    if (input.active_view) VIEWS[input.active_view](q);
    applySearch(q, term, search, ctx.tz);
    if (groups.some((g) => g.length)) applyFilters(q, ctx.db, groups, filterCtx);
  };
  const query = ctx.db('store_order_tax_rates as t').select('t.*');
  const includes = Boolean((narrowed || input.active_view) && input.include_ids?.length);
  if (includes) query.where(filter).orWhereIn('t.id', input.include_ids ?? []);
  else filter(query);

  const sort = ownEntry(SORTABLE, String(input.sort_by ?? '')) ?? 't.id';
  const direction = String(input.sort_type).toLowerCase() === 'asc' ? 'asc' : 'desc';
  query.orderBy(sort, direction);
  if (sort !== 't.id') query.orderBy('t.id', direction);

  const { page, perPage } = readPage(input, LIMITS);
  const rows = (await query
    .clone()
    .limit(perPage)
    .offset((page - 1) * perPage)) as TaxRecordRow[];
  const count = async () => Number(((await query.clone().clear('order').clearSelect().count({ total: '*' }).first()) as { total: number | string }).total);
  // A short first page is the whole answer; the unfiltered list and each view count once per 5 s (and per write).
  const total =
    page === 1 && rows.length < perPage
      ? rows.length
      : narrowed || includes
        ? await count()
        : await totalCache(ctx.db, input.active_view ?? '').get(taxWrites(ctx), ctx.clock.now().getTime(), count);

  const records = rows.map(presentTaxRecord);
  const related = await loadRelations(ctx.db, records, input.with ?? []);
  const data = records.map((record) => {
    const shown = fields ? Object.fromEntries(fields.map((f) => [f, record[f as keyof TaxRecord]])) : record;
    return { ...shown, ...related(record) };
  });
  return pageOf(data, total, page, perPage);
}
