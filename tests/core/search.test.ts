/**
 * The list `search` syntax (`src/core/search.ts`).
 *
 * `parseSearch(input)` is pure and turns the query parameter into one term:
 *   - `{kind: 'empty'}`      nothing to search (missing, blank, not a string)
 *   - `{kind: 'id', id}`     `#123`
 *   - `{kind: 'condition'}`  `column <op> value` with `=`, `!=`/`<>`, `>`, `<`, `>=`, `<=`, `::` (between `a-b`),
 *                            `~` (contains), `!~` (does not contain); the column is lower-cased, the value unquoted
 *   - `{kind: 'text', text}` anything else, searched as free text
 *
 * `applySearch(query, term, spec, zone?)` applies a term to a knex query: conditions only on allowlisted columns,
 * with values the column can hold; everything else becomes a free-text search of the whole term. Values reach SQL
 * only as bindings, and `%`, `_`, `\` and quotes in text match literally.
 */
import type { Knex } from 'knex';
import { whereContains } from '../../src/core/db';
import { applySearch, parseSearch, type SearchSpec, type SearchTerm } from '../../src/core/search';
import { openDatabase } from '../../src/host/database';

describe('parseSearch', () => {
  describe('the spec examples', () => {
    it.each<[string, SearchTerm]>([
      ['id=5', { kind: 'condition', column: 'id', operator: '=', value: '5', raw: 'id=5' }],
      ['ltv>1000', { kind: 'condition', column: 'ltv', operator: '>', value: '1000', raw: 'ltv>1000' }],
      ['status = completed', { kind: 'condition', column: 'status', operator: '=', value: 'completed', raw: 'status = completed' }],
      ['id :: 1-10', { kind: 'condition', column: 'id', operator: 'between', value: '1', to: '10', raw: 'id :: 1-10' }],
      ['#123', { kind: 'id', id: 123 }],
      ['ID = 5', { kind: 'condition', column: 'id', operator: '=', value: '5', raw: 'ID = 5' }],
      ['id > 5', { kind: 'condition', column: 'id', operator: '>', value: '5', raw: 'id > 5' }],
      ['order_id > 100', { kind: 'condition', column: 'order_id', operator: '>', value: '100', raw: 'order_id > 100' }],
      ['id = 5', { kind: 'condition', column: 'id', operator: '=', value: '5', raw: 'id = 5' }],
    ])('%s', (input, term) => {
      expect(parseSearch(input)).toEqual(term);
    });
  });

  describe('every operator, with and without spaces', () => {
    it.each([
      ['id=5', '='],
      ['id != 5', '!='],
      ['id!=5', '!='],
      ['id <> 5', '!='],
      ['id<>5', '!='],
      ['id > 5', '>'],
      ['id < 5', '<'],
      ['id>=5', '>='],
      ['id >= 5', '>='],
      ['id<=5', '<='],
      ['id <= 5', '<='],
      ['name ~ 5', 'contains'],
      ['name~5', 'contains'],
      ['name !~ 5', 'not_contains'],
      ['name!~5', 'not_contains'],
    ])('%s → %s', (input, operator) => {
      expect(parseSearch(input)).toMatchObject({ kind: 'condition', operator, value: '5' });
    });
  });

  describe('values', () => {
    it.each<[string, Partial<SearchTerm>]>([
      ['status = "completed"', { column: 'status', value: 'completed' }],
      ["status = 'completed'", { column: 'status', value: 'completed' }],
      ['name = "John Smith"', { column: 'name', value: 'John Smith' }],
      ['name = John Smith', { column: 'name', value: 'John Smith' }],
      ["last_name = O'Brien", { column: 'last_name', value: "O'Brien" }],
      ['last_name = "O\'Brien"', { column: 'last_name', value: "O'Brien" }],
      ['name = "unbalanced', { column: 'name', value: '"unbalanced' }],
      ['email = john@example.com', { column: 'email', value: 'john@example.com' }],
      ['note = a = b', { column: 'note', value: 'a = b' }],
      ['Status = Completed', { column: 'status', value: 'Completed' }],
      ['ltv < -5', { column: 'ltv', operator: '<', value: '-5' }],
      ['  id   =   5  ', { column: 'id', value: '5', raw: 'id   =   5' }],
    ])('%s', (input, expected) => {
      expect(parseSearch(input)).toMatchObject({ kind: 'condition', ...expected });
    });
  });

  describe('ranges with `::`', () => {
    it.each([
      ['id :: 1-10', '1', '10'],
      ['id::1-10', '1', '10'],
      ['id :: 1 - 10', '1', '10'],
      ['id :: 1,10', '1', '10'],
      ['id :: 1, 10', '1', '10'],
      ['ltv :: 10.5-20.25', '10.5', '20.25'],
      ['ltv :: -10--1', '-10', '-1'],
      ['created_at :: 2024-01-01 - 2024-02-01', '2024-01-01', '2024-02-01'],
      ['created_at :: 2024-01-01-2024-02-01', '2024-01-01', '2024-02-01'],
      ['created_at :: 2024-01-01 08:00:00 - 2024-01-01 17:30:00', '2024-01-01 08:00:00', '2024-01-01 17:30:00'],
      ['created_at :: "2024-01-01" - "2024-02-01"', '2024-01-01', '2024-02-01'],
      ["id :: '1' - '10'", '1', '10'],
      ['id :: "1-10"', '1', '10'],
    ])('%s → %s .. %s', (input, from, to) => {
      expect(parseSearch(input)).toMatchObject({ kind: 'condition', operator: 'between', value: from, to });
    });

    it.each(['id :: 5', 'id :: 1-', 'id :: -', 'id :: a b c', 'id :: 1-2-3'])('%s is not a range, so it is free text', (input) => {
      expect(parseSearch(input)).toEqual({ kind: 'text', text: input });
    });
  });

  describe('ids', () => {
    it.each([
      ['#123', 123],
      ['# 123', 123],
      ['#0', 0],
      ['  #42  ', 42],
    ])('%s → id %d', (input, id) => {
      expect(parseSearch(input)).toEqual({ kind: 'id', id });
    });

    it.each(['#abc', '#12a', '#-5', '#', '#99999999999999999999'])('%s is free text', (input) => {
      expect(parseSearch(input)).toEqual({ kind: 'text', text: input });
    });
  });

  describe('free text', () => {
    it.each([
      ['john@example.com', 'an email is text, not a condition'],
      ['John Smith', 'words'],
      ["O'Brien", 'an apostrophe is normal'],
      ['100%', 'a percent sign'],
      ['snake_case', 'an underscore'],
      ['C:\\temp', 'a backslash'],
      ['"quoted phrase"', 'quotes stay part of free text'],
      ['INV-2024-0001', 'an invoice number'],
      ['5', 'a bare number'],
      ['foo:bar', 'a single colon is not an operator'],
      ['= 5', 'an operator without a column'],
      ['1id = 5', 'a column must start with a letter or underscore'],
      ['id =', 'an operator without a value'],
      ['id = ""', 'an empty quoted value'],
      ["id = ''", 'an empty single-quoted value'],
      ['first-name = x', 'a hyphen is not part of a column name'],
    ])('%s (%s)', (input) => {
      expect(parseSearch(input)).toEqual({ kind: 'text', text: input.trim() });
    });

    it('trims the text', () => {
      expect(parseSearch('  John  ')).toEqual({ kind: 'text', text: 'John' });
    });

    it('a number (a coerced query value) is searched as its text', () => {
      expect(parseSearch(123)).toEqual({ kind: 'text', text: '123' });
    });
  });

  describe('nothing to search', () => {
    it.each<[string, unknown]>([
      ['undefined', undefined],
      ['null', null],
      ['the empty string', ''],
      ['spaces', '   '],
      ['tabs and newlines', '\t\n '],
      ['an array (search[]=x)', ['id=5']],
      ['an object (search[a]=x)', { a: 'x' }],
      ['a boolean', true],
    ])('%s → empty', (_title, input) => {
      expect(parseSearch(input)).toEqual({ kind: 'empty' });
    });
  });
});

describe('applySearch (SQLite in memory)', () => {
  let db: Knex;

  const rows = [
    { id: 1, first_name: 'Ann', last_name: "O'Brien", email: 'ann@example.com', status: 'completed', ltv: 500, created_at: '2024-01-01 00:00:00' },
    { id: 2, first_name: 'John', last_name: 'Smith', email: 'john@example.com', status: 'active', ltv: 1500, created_at: '2024-01-15 12:00:00' },
    { id: 3, first_name: 'Percy', last_name: '100% Cotton', email: 'percy@example.com', status: 'active', ltv: 1000, created_at: '2024-01-31 23:30:00' },
    { id: 4, first_name: 'Una', last_name: '100 Cotton', email: 'una@example.com', status: 'inactive', ltv: 0, created_at: '2024-02-01 03:00:00' },
    { id: 5, first_name: 'Under', last_name: 'snake_case', email: 'under@example.com', status: 'active', ltv: 2500, created_at: '2024-02-01 10:00:00' },
    { id: 6, first_name: 'Usual', last_name: 'snakeXcase', email: 'usual@example.com', status: 'archived', ltv: 99, created_at: '2024-02-10 08:00:00' },
    { id: 7, first_name: 'Back', last_name: 'C:\\temp', email: 'back@example.com', status: 'active', ltv: 7, created_at: '2024-03-01 00:00:00' },
    { id: 8, first_name: 'Quote', last_name: '"The" Quoter', email: 'quote@example.com', status: 'active', ltv: 12, created_at: '2024-03-02 00:00:00' },
    { id: 9, first_name: 'Eq', last_name: 'notes = vip', email: 'eq@example.com', status: 'active', ltv: 1, created_at: '2024-03-03 00:00:00' },
    { id: 10, first_name: 'Bad', last_name: 'id = abc', email: 'bad@example.com', status: 'active', ltv: 2, created_at: '2024-03-04 00:00:00' },
  ];

  /** The allowlist a customers list would declare: `notes` and `first_name` are deliberately left out. */
  const spec: SearchSpec = {
    idColumn: 'id',
    columns: {
      id: { column: 'id', kind: 'integer' },
      ltv: { column: 'ltv', kind: 'integer' },
      status: { column: 'status', kind: 'string' },
      email: { column: 'email', kind: 'string' },
      last_name: { column: 'last_name', kind: 'string' },
      created_at: { column: 'created_at', kind: 'date' },
    },
    text(query, text) {
      query.where((q) => {
        whereContains(q, 'first_name', text);
        q.orWhere((o) => whereContains(o, 'last_name', text));
        q.orWhere((o) => whereContains(o, 'email', text));
      });
    },
  };

  beforeAll(async () => {
    db = await openDatabase('sqlite::memory:');
    await db.schema.createTable('people', (t) => {
      t.integer('id').primary();
      t.string('first_name');
      t.string('last_name');
      t.string('email');
      t.string('notes');
      t.string('status');
      t.integer('ltv');
      t.string('created_at');
    });
    await db('people').insert(rows.map((row) => ({ ...row, notes: 'vip' })));
  });

  afterAll(async () => {
    await db.destroy();
  });

  async function search(input: unknown, zone?: string): Promise<number[]> {
    const query = db('people').select('id').orderBy('id');
    applySearch(query, parseSearch(input), spec, zone);
    return ((await query) as Array<{ id: number }>).map((row) => row.id);
  }

  const all = rows.map((r) => r.id);

  describe('ids and integer columns', () => {
    it.each<[string, number[]]>([
      ['#3', [3]],
      ['#999', []],
      ['id=5', [5]],
      ['ID = 5', [5]],
      ['id = "5"', [5]],
      ['id > 8', [9, 10]],
      ['id >= 9', [9, 10]],
      ['id < 2', [1]],
      ['id <= 2', [1, 2]],
      ['id != 1', [2, 3, 4, 5, 6, 7, 8, 9, 10]],
      ['id <> 1', [2, 3, 4, 5, 6, 7, 8, 9, 10]],
      ['id :: 2-4', [2, 3, 4]],
      ['id :: 2 - 4', [2, 3, 4]],
      ['id :: 2,4', [2, 3, 4]],
      ['ltv>1000', [2, 5]],
      ['ltv >= 1000', [2, 3, 5]],
      ['ltv = 0', [4]],
      ['ltv < 0', []],
      ['ltv > -1', all],
      ['id ~ 1', [1, 10]],
    ])('%s → %j', async (input, ids) => {
      expect(await search(input)).toEqual(ids);
    });
  });

  describe('string columns', () => {
    it.each<[string, number[]]>([
      ['status = completed', [1]],
      ["status = 'completed'", [1]],
      ['status != active', [1, 4, 6]],
      ['status ~ act', [2, 3, 4, 5, 7, 8, 9, 10]],
      ['status !~ act', [1, 6]],
      ["last_name = O'Brien", [1]],
      ['last_name ~ 100%', [3]],
      ['last_name ~ _', [5]],
      ['last_name ~ snake_case', [5]],
      ['last_name !~ Cotton', [1, 2, 5, 6, 7, 8, 9, 10]],
      ['email = john@example.com', [2]],
      ['email ~ @example.com', all],
    ])('%s → %j', async (input, ids) => {
      expect(await search(input)).toEqual(ids);
    });
  });

  describe('date columns: a bare date is the whole day; the end of a range is inclusive', () => {
    it.each<[string, number[]]>([
      ['created_at :: 2024-01-01 - 2024-01-31', [1, 2, 3]],
      ['created_at :: 2024-01-01-2024-01-15', [1, 2]],
      ['created_at :: 2024-01-15 12:00:00 - 2024-02-01 03:00:00', [2, 3, 4]],
      ['created_at = 2024-02-01', [4, 5]],
      ['created_at != 2024-02-01', [1, 2, 3, 6, 7, 8, 9, 10]],
      ['created_at > 2024-02-01', [6, 7, 8, 9, 10]],
      ['created_at >= 2024-02-01', [4, 5, 6, 7, 8, 9, 10]],
      ['created_at < 2024-01-15', [1]],
      ['created_at <= 2024-01-15', [1, 2]],
      ['created_at > 2024-01-15 12:00:00', [3, 4, 5, 6, 7, 8, 9, 10]],
      ['created_at >= 2024-01-15 12:00', [2, 3, 4, 5, 6, 7, 8, 9, 10]],
      ['created_at = 2024-01-15 12:00:00', [2]],
      ['created_at ~ 2024-02', [4, 5, 6]],
      ['created_at !~ 2024-0', []],
    ])('%s → %j', async (input, ids) => {
      expect(await search(input)).toEqual(ids);
    });

    it.each<[string, string, number[]]>([
      ['created_at = 2024-01-31', 'UTC', [3]],
      ['created_at = 2024-01-31', 'America/New_York', [3, 4]],
      ['created_at = 2024-02-01', 'America/New_York', [5]],
      ['created_at = 2024-02-01', 'Asia/Kolkata', [3, 4, 5]],
      ['created_at :: 2024-01-01 - 2024-01-31', 'America/New_York', [2, 3, 4]],
      ['created_at > 2024-01-31 20:00:00', 'America/New_York', [4, 5, 6, 7, 8, 9, 10]],
      ['created_at > 2024-01-31 23:00:00', 'America/New_York', [5, 6, 7, 8, 9, 10]],
      ['created_at = 2024-01-31', 'Not/A_Zone', [3]],
    ])('%s in %s (the caller’s user_tz) → %j', async (input, zone, ids) => {
      expect(await search(input, zone)).toEqual(ids);
    });
  });

  describe('free text: name or email, with every character taken literally', () => {
    it.each<[string, number[]]>([
      ["O'Brien", [1]],
      ["o'brien", [1]],
      ['john@example.com', [2]],
      ['John Smith', []],
      ['Smith', [2]],
      ['100%', [3]],
      ['%', [3]],
      ['100', [3, 4]],
      ['_', [5]],
      ['snake_case', [5]],
      ['\\', [7]],
      ['C:\\temp', [7]],
      ['"The"', [8]],
      ['"', [8]],
      ["'", [1]],
      ['nobody-matches-this', []],
    ])('%j → %j', async (input, ids) => {
      expect(await search(input)).toEqual(ids);
    });

    it.each<[string, unknown]>([
      ['missing', undefined],
      ['blank', '   '],
      ['an array', ['x']],
    ])('%s search → every row', async (_title, input) => {
      expect(await search(input)).toEqual(all);
    });
  });

  describe('only allowlisted columns, only fitting values; anything else is searched as text', () => {
    it.each<[string, string, number[]]>([
      ['notes = vip', 'notes is not allowlisted (every row has notes "vip", yet only the text matches)', [9]],
      ['first_name = Ann', 'first_name is not allowlisted', []],
      ['password = x', 'an unknown column', []],
      ['id = abc', 'an integer column refuses text', [10]],
      ['ltv > lots', 'an integer column refuses text', []],
      ['id = 1.5', 'an integer column refuses decimals', []],
      ['id = 99999999999999999999', 'an integer column refuses integers beyond 2^53', []],
      ['id :: 1-abc', 'both ends must fit', []],
      ['created_at = yesterday', 'a date column refuses non-dates', []],
      ['created_at = 2024-02-30', 'a date column refuses dates that do not exist', []],
      ['created_at :: 2024-01-01 - soon', 'both ends must be dates', []],
    ])('%s (%s) → %j', async (input, _why, ids) => {
      expect(await search(input)).toEqual(ids);
    });

    it('the fallback searches the whole raw term', () => {
      const text = jest.fn();
      const query = db('people');
      applySearch(query, parseSearch('secret_column = 5'), { ...spec, text });
      expect(text).toHaveBeenCalledWith(query, 'secret_column = 5');
    });
  });

  describe('values reach SQL only as bindings', () => {
    it.each([
      "status = x'; DROP TABLE people; --",
      'id = 1; DROP TABLE people',
      "'; DELETE FROM people; --",
      "last_name ~ %' OR 1=1 --",
      "created_at ~ 2024' OR '1'='1",
    ])('%s', async (input) => {
      const query = db('people').select('id');
      applySearch(query, parseSearch(input), spec);
      const { sql } = query.toSQL();
      expect(sql).not.toMatch(/DROP|DELETE|1=1|'1'/i);
      expect(await query).toEqual([]);
      expect(await db('people').count({ n: '*' })).toEqual([{ n: rows.length }]);
    });
  });
});
