/**
 * Pages of results (`src/core/page.ts`).
 *
 * - `readPage(query, limits)` reads `page` and `per_page` from a query string and clamps them: out-of-range or
 *   unreadable values are never errors. `per_page` is clamped to `[min (default 1), max]`, or the default when it
 *   is missing or not an integer; `page` below 1 or unreadable is 1.
 * - `pageOf(data, total, page, perPage)` builds the page object
 *   `{current_page, data, per_page, total, last_page, from, to}`.
 * - `paginate(query, page, perPage)` counts the rows a query matches and fetches one page of them.
 */
import type { Knex } from 'knex';
import { pageOf, paginate, readPage, readWindow, type PageLimits } from '../../src/core/page';
import { openDatabase } from '../../src/host/database';

/** customers list and customer orders: 1-199, default 10 */
const customers: PageLimits = { min: 1, max: 199, default: 10 };
/** orders and subscriptions: default 10, max 200 */
const orders: PageLimits = { max: 200, default: 10 };
/** customer-portal order list: default 15 */
const portal: PageLimits = { max: 200, default: 15 };

describe('readPage: per_page', () => {
  it.each<[string, unknown, PageLimits, number]>([
    ['missing → default', undefined, orders, 10],
    ['missing → default (portal)', undefined, portal, 15],
    ['a number', 25, orders, 25],
    ['a numeric string', '25', orders, 25],
    ['a numeric string with spaces', ' 25 ', orders, 25],
    ['0 → the minimum', 0, orders, 1],
    ['"0" → the minimum', '0', orders, 1],
    ['-5 → the minimum', -5, orders, 1],
    ['"-5" → the minimum', '-5', orders, 1],
    ['500 with max 200 → 200', 500, orders, 200],
    ['"500" with max 200 → 200', '500', orders, 200],
    ['exactly the max', 200, orders, 200],
    ['200 with limits 1-199 → 199', 200, customers, 199],
    ['199 with limits 1-199', 199, customers, 199],
    ['1 with limits 1-199', 1, customers, 1],
    ['0 with limits 1-199 → 1', 0, customers, 1],
    ['"abc" → default', 'abc', orders, 10],
    ['"10abc" → default (not parsed as 10)', '10abc', orders, 10],
    ['"1e2" → default', '1e2', orders, 10],
    ['"12.5" → default', '12.5', orders, 10],
    ['12.5 → default', 12.5, orders, 10],
    ['"" → default', '', orders, 10],
    ['null → default', null, orders, 10],
    ['an array (per_page[]=5) → default', ['5'], orders, 10],
    ['NaN → default', Number.NaN, orders, 10],
    ['Infinity → default', Number.POSITIVE_INFINITY, orders, 10],
    ['a huge numeric string → default', '99999999999999999999', orders, 10],
  ])('%s', (_title, perPage, limits, expected) => {
    expect(readPage({ per_page: perPage }, limits).perPage).toBe(expected);
  });

  it('honours a minimum above 1', () => {
    expect(readPage({ per_page: 2 }, { min: 5, max: 50, default: 20 }).perPage).toBe(5);
  });
});

describe('readPage: page', () => {
  it.each<[string, unknown, number]>([
    ['missing → 1', undefined, 1],
    ['a number', 3, 3],
    ['a numeric string', '3', 3],
    ['0 → 1', 0, 1],
    ['"0" → 1', '0', 1],
    ['-1 → 1', -1, 1],
    ['"-1" → 1', '-1', 1],
    ['"x" → 1', 'x', 1],
    ['"2x" → 1', '2x', 1],
    ['2.5 → 1', 2.5, 1],
    ['an array → 1', ['2'], 1],
    ['a large page is kept (it simply has no rows)', '100000', 100000],
  ])('%s', (_title, page, expected) => {
    expect(readPage({ page }, orders).page).toBe(expected);
  });

  it('reads both at once', () => {
    expect(readPage({ page: '2', per_page: '50' }, customers)).toEqual({ page: 2, perPage: 50 });
  });
});

describe('readWindow: limit and offset, or page and per_page', () => {
  it.each<[string, Record<string, unknown>, { size: number; offset: number }]>([
    ['page and per_page', { page: '3', per_page: '20' }, { size: 20, offset: 40 }],
    ['nothing: the first page of the default size', {}, { size: 10, offset: 0 }],
    ['limit and offset', { limit: '5', offset: '7' }, { size: 5, offset: 7 }],
    ['limit alone starts at the first row', { limit: 5, page: 4 }, { size: 5, offset: 0 }],
    ['limit clamped to the page-size limits', { limit: '900' }, { size: 200, offset: 0 }],
    ['limit 0 → the minimum', { limit: 0 }, { size: 1, offset: 0 }],
    ['offset alone replaces the page as the start', { per_page: 3, page: 9, offset: 8 }, { size: 3, offset: 8 }],
    ['a negative offset → 0', { limit: 2, offset: -4 }, { size: 2, offset: 0 }],
    ['unreadable limit and offset are ignored', { limit: 'x', offset: '1e3', page: 2 }, { size: 10, offset: 10 }],
  ])('%s', (_title, query, expected) => {
    expect(readWindow(query, orders)).toEqual(expected);
  });
});

describe('pageOf', () => {
  it.each<{ title: string; data: number[]; total: number; page: number; perPage: number; last_page: number; from: number | null; to: number | null }>([
    { title: 'first of several pages', data: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], total: 25, page: 1, perPage: 10, last_page: 3, from: 1, to: 10 },
    { title: 'a middle page', data: [11, 12, 13, 14, 15, 16, 17, 18, 19, 20], total: 25, page: 2, perPage: 10, last_page: 3, from: 11, to: 20 },
    { title: 'a short last page', data: [21, 22, 23, 24, 25], total: 25, page: 3, perPage: 10, last_page: 3, from: 21, to: 25 },
    { title: 'exactly full pages', data: [11, 12, 13, 14, 15, 16, 17, 18, 19, 20], total: 20, page: 2, perPage: 10, last_page: 2, from: 11, to: 20 },
    { title: 'beyond the last page: empty, from/to null', data: [], total: 25, page: 4, perPage: 10, last_page: 3, from: null, to: null },
    { title: 'no rows at all: last_page is still 1', data: [], total: 0, page: 1, perPage: 10, last_page: 1, from: null, to: null },
    { title: 'one row per page', data: [7], total: 9, page: 7, perPage: 1, last_page: 9, from: 7, to: 7 },
  ])('$title', ({ data, total, page, perPage, last_page, from, to }) => {
    expect(pageOf(data, total, page, perPage)).toEqual({ current_page: page, data, per_page: perPage, total, last_page, from, to });
  });

  it('has exactly the spec fields plus from and to', () => {
    expect(Object.keys(pageOf([], 0, 1, 10)).sort()).toEqual(['current_page', 'data', 'from', 'last_page', 'per_page', 'to', 'total']);
  });
});

describe('paginate (SQLite in memory)', () => {
  let db: Knex;

  beforeAll(async () => {
    db = await openDatabase('sqlite::memory:');
    await db.schema.createTable('items', (t) => {
      t.increments('id');
      t.string('colour');
      t.integer('price');
    });
    // 23 rows: colours cycle red, green, blue (red: 8, green: 8, blue: 7); price = id * 100
    await db('items').insert(Array.from({ length: 23 }, (_, i) => ({ colour: ['red', 'green', 'blue'][i % 3], price: (i + 1) * 100 })));
  });

  afterAll(async () => {
    await db.destroy();
  });

  const ids = (rows: Array<{ id: number }>) => rows.map((r) => r.id);

  it.each<{
    title: string;
    query: () => Knex.QueryBuilder;
    page: number;
    perPage: number;
    total: number;
    last_page: number;
    data: number[];
    from: number | null;
    to: number | null;
  }>([
    {
      title: 'first page',
      query: () => db('items').orderBy('id'),
      page: 1,
      perPage: 10,
      total: 23,
      last_page: 3,
      data: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      from: 1,
      to: 10,
    },
    { title: 'last (short) page', query: () => db('items').orderBy('id'), page: 3, perPage: 10, total: 23, last_page: 3, data: [21, 22, 23], from: 21, to: 23 },
    { title: 'beyond the last page', query: () => db('items').orderBy('id'), page: 4, perPage: 10, total: 23, last_page: 3, data: [], from: null, to: null },
    {
      title: 'far beyond the last page',
      query: () => db('items').orderBy('id'),
      page: 1_000_000,
      perPage: 200,
      total: 23,
      last_page: 1,
      data: [],
      from: null,
      to: null,
    },
    {
      title: 'descending order',
      query: () => db('items').orderBy('id', 'desc'),
      page: 2,
      perPage: 5,
      total: 23,
      last_page: 5,
      data: [18, 17, 16, 15, 14],
      from: 6,
      to: 10,
    },
    {
      title: 'the count follows the filters',
      query: () => db('items').where('colour', 'red').orderBy('id'),
      page: 2,
      perPage: 3,
      total: 8,
      last_page: 3,
      data: [10, 13, 16],
      from: 4,
      to: 6,
    },
    {
      title: 'two filters',
      query: () => db('items').where('colour', 'blue').where('price', '>', 1000).orderBy('id'),
      page: 1,
      perPage: 10,
      total: 4,
      last_page: 1,
      data: [12, 15, 18, 21],
      from: 1,
      to: 4,
    },
    {
      title: 'nothing matches',
      query: () => db('items').where('colour', 'purple'),
      page: 1,
      perPage: 10,
      total: 0,
      last_page: 1,
      data: [],
      from: null,
      to: null,
    },
    {
      title: 'a select list does not disturb the count',
      query: () => db('items').select('id', 'colour').where('colour', 'green').orderBy('id'),
      page: 1,
      perPage: 2,
      total: 8,
      last_page: 4,
      data: [2, 5],
      from: 1,
      to: 2,
    },
    {
      title: 'a limit/offset already on the query is replaced',
      query: () => db('items').orderBy('id').limit(2).offset(20),
      page: 1,
      perPage: 3,
      total: 23,
      last_page: 8,
      data: [1, 2, 3],
      from: 1,
      to: 3,
    },
  ])('$title', async ({ query, page, perPage, total, last_page, data, from, to }) => {
    const result = await paginate<{ id: number }>(query(), page, perPage);
    expect({ ...result, data: ids(result.data) }).toEqual({ current_page: page, data, per_page: perPage, total, last_page, from, to });
  });

  it('returns the selected columns of each row', async () => {
    const result = await paginate<{ id: number; colour: string }>(db('items').select('id', 'colour').orderBy('id'), 1, 2);
    expect(result.data).toEqual([
      { id: 1, colour: 'red' },
      { id: 2, colour: 'green' },
    ]);
    expect(typeof result.total).toBe('number');
  });

  it('counts groups, not rows, for a grouped query', async () => {
    const result = await paginate<{ colour: string; n: number }>(db('items').select('colour').count({ n: '*' }).groupBy('colour').orderBy('colour'), 1, 2);
    expect(result).toMatchObject({
      total: 3,
      last_page: 2,
      from: 1,
      to: 2,
      data: [
        { colour: 'blue', n: 7 },
        { colour: 'green', n: 8 },
      ],
    });
  });

  it('counts distinct rows for a distinct query', async () => {
    const result = await paginate<{ colour: string }>(db('items').distinct('colour').orderBy('colour'), 1, 10);
    expect(result).toMatchObject({ total: 3, last_page: 1, data: [{ colour: 'blue' }, { colour: 'green' }, { colour: 'red' }] });
  });

  it('leaves the query it was given untouched (it can be reused)', async () => {
    const query = db('items').where('colour', 'red').orderBy('id');
    const before = query.toString();
    await paginate(query, 2, 3);
    expect(query.toString()).toBe(before);
  });

  it('works inside a transaction (the count runs on the transaction, grouped or not)', async () => {
    const trx = await db.transaction();
    try {
      await trx('items').insert({ colour: 'purple', price: 1 });
      await expect(paginate(trx('items').where('colour', 'purple'), 1, 10)).resolves.toMatchObject({ total: 1, from: 1, to: 1 });
      await expect(paginate(trx('items').select('colour').groupBy('colour'), 1, 10)).resolves.toMatchObject({ total: 4 });
    } finally {
      await trx.rollback();
    }
    expect(await db('items').where('colour', 'purple')).toEqual([]);
  });
});
