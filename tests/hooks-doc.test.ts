/**
 * hooks/HOOKS.md is generated from the typed catalogue (hooks/index.ts) and the host's hooks
 * (src/host/contract.ts) by `npm run hooks:doc` (scripts/hooks-doc.ts).
 *
 * - The committed document is exactly what the generator renders now, so a catalogue change without
 *   regenerating the doc fails CI.
 * - Every hook of the catalogue and of the host appears in its table.
 * - A malformed entry (no description, no tuple type, wrong prefix, declared twice) stops the generator with
 *   a message naming the file, line and hook, rather than producing a doc with a blank row.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectHooks, HooksDocError, renderHooksDoc } from '../scripts/hooks-doc';

const repoRoot = path.resolve(__dirname, '..');

/** Hook names as written in an `interface <map> {` block, found independently of the generator's scanner. */
function declaredNames(file: string, map: 'ActionMap' | 'FilterMap'): string[] {
  const text = fs.readFileSync(path.join(repoRoot, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  const names: string[] = [];
  const blocks = text.split(new RegExp(`interface\\s+${map}\\s*\\{`)).slice(1);
  for (const block of blocks) {
    // The block ends at the first line that closes it (a `}` at the start of a line, after indentation).
    const body = block.split(/\n\s{0,2}\}/)[0];
    for (const match of body.matchAll(/^\s*'([^']+)'\s*:/gm)) names.push(match[1]);
  }
  return names;
}

/** A throwaway root holding the two source files, for the malformed-entry cases. */
function fixture(catalogue: string, contract?: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hooks-doc-'));
  fs.mkdirSync(path.join(root, 'hooks'));
  fs.mkdirSync(path.join(root, 'src', 'host'), { recursive: true });
  fs.writeFileSync(path.join(root, 'hooks', 'index.ts'), catalogue);
  fs.writeFileSync(
    path.join(root, 'src', 'host', 'contract.ts'),
    contract ??
      [
        'export interface ActionMap {',
        '  /** A user logged in. */',
        "  'host/user/logged_in': [user: HostUser];",
        '}',
        'export interface FilterMap {',
        '  /** The capability verdict. */',
        "  'host/user/can': [allowed: boolean, context: { user: HostUser; capability: string }];",
        '}',
        '',
      ].join('\n'),
  );
  return root;
}

function problemsOf(root: string): string[] {
  try {
    renderHooksDoc(root);
  } catch (error) {
    expect(error).toBeInstanceOf(HooksDocError);
    return (error as HooksDocError).problems;
  }
  throw new Error('renderHooksDoc accepted a malformed catalogue');
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

function tempRoot(catalogue: string, contract?: string): string {
  const root = fixture(catalogue, contract);
  roots.push(root);
  return root;
}

describe('hooks/HOOKS.md', () => {
  it('is up to date with hooks/index.ts and src/host/contract.ts (run `npm run hooks:doc`)', () => {
    const committed = fs.readFileSync(path.join(repoRoot, 'hooks', 'HOOKS.md'), 'utf8');
    expect(committed).toBe(renderHooksDoc(repoRoot));
  });

  it('lists every hook of the catalogue and of the host in the right table, marked by where it comes from', () => {
    const doc = renderHooksDoc(repoRoot);
    const [, afterActions] = doc.split(/^## Actions.*$/m);
    const [actionsTable, filtersTable] = afterActions.split(/^## Filters.*$/m);
    const expected = [
      ...declaredNames('hooks/index.ts', 'ActionMap').map((name) => ({ name, table: actionsTable, from: 'store' })),
      ...declaredNames('hooks/index.ts', 'FilterMap').map((name) => ({ name, table: filtersTable, from: 'store' })),
      ...declaredNames('src/host/contract.ts', 'ActionMap').map((name) => ({ name, table: actionsTable, from: 'host' })),
      ...declaredNames('src/host/contract.ts', 'FilterMap').map((name) => ({ name, table: filtersTable, from: 'host' })),
    ];
    expect(expected.filter((e) => e.from === 'store').length).toBeGreaterThan(0);
    expect(expected.filter((e) => e.from === 'host').length).toBeGreaterThan(0);
    for (const { name, table, from } of expected) {
      const row = table.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
      expect({ name, row }).toEqual({ name, row: expect.stringMatching(new RegExp(`\\| ${from} \\|$`)) });
    }
    // Nothing else: each table has exactly the declared hooks, sorted by name.
    const rowsOf = (table: string) =>
      table
        .split('\n')
        .filter((line) => /^\| `/.test(line))
        .map((line) => line.split('`')[1]);
    const sorted = (names: string[]) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(rowsOf(actionsTable)).toEqual(sorted(expected.filter((e) => e.table === actionsTable).map((e) => e.name)));
    expect(rowsOf(filtersTable)).toEqual(sorted(expected.filter((e) => e.table === filtersTable).map((e) => e.name)));
  });

  it('renders each entry with its arguments and description', () => {
    const { entries, problems } = collectHooks(repoRoot);
    expect(problems).toEqual([]);
    const can = entries.find((e) => e.name === 'store/user/can');
    expect(can).toMatchObject({
      kind: 'filter',
      source: 'store',
      args: ['allowed: boolean', 'context: { user: HostUser; permission: string }'],
      description: 'The verdict of every store permission check; return false to deny, true to grant.',
    });
    expect(renderHooksDoc(repoRoot)).toContain(
      '| `store/user/can` | `allowed: boolean`, `context: { user: HostUser; permission: string }` | The verdict of every store permission check; return false to deny, true to grant. | store |',
    );
  });
});

describe('renderHooksDoc on a malformed catalogue', () => {
  const header = "declare module '../src/host/contract' {\n";

  it('refuses an entry without a description, naming the file, line and hook', () => {
    const root = tempRoot(
      header +
        [
          '  interface ActionMap {',
          '    /** An order was paid. */',
          "    'store/order/paid': [order: Order];",
          "    'store/order/refunded': [order: Order, cents: number];",
          '  }',
          '}',
          '',
        ].join('\n'),
    );
    expect(problemsOf(root)).toEqual([expect.stringMatching(/^hooks\/index\.ts:5: 'store\/order\/refunded' has no description/)]);
  });

  it("does not take a plain comment, an empty JSDoc or the previous entry's description for a description", () => {
    const root = tempRoot(
      header +
        [
          '  interface FilterMap {',
          '    // the shipping total',
          "    'store/shipping/total': [cents: number];",
          '    /** */',
          "    'store/tax/rate': [rate: number];",
          '  }',
          '}',
          '',
        ].join('\n'),
    );
    expect(problemsOf(root)).toEqual([
      expect.stringContaining("hooks/index.ts:4: 'store/shipping/total' has no description"),
      expect.stringContaining("hooks/index.ts:6: 'store/tax/rate' has no description"),
    ]);
  });

  it('reports an entry that is not a tuple, a name outside its prefix and a hook declared twice', () => {
    const root = tempRoot(
      header +
        [
          '  interface ActionMap {',
          '    /** Not a tuple. */',
          "    'store/cart/emptied': CartEvent;",
          '    /** Wrong prefix for the catalogue. */',
          "    'host/cart/created': [cart: Cart];",
          '    /** Declared by the host already. */',
          "    'host/user/logged_in': [user: HostUser];",
          '  }',
          '}',
          '',
        ].join('\n'),
    );
    const problems = problemsOf(root);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining("hooks/index.ts:4: 'store/cart/emptied' must be a tuple"),
        expect.stringContaining("hooks/index.ts:6: 'host/cart/created' is declared in hooks/index.ts, so its name must start with 'store/'"),
        expect.stringContaining("hooks/index.ts:8: 'host/user/logged_in' is already declared at src/host/contract.ts:3"),
      ]),
    );
    expect(problems).toHaveLength(4); // 'host/user/logged_in' also breaks the prefix rule
  });

  it('reads multi-line entries, nested object types and comments inside the block', () => {
    const root = tempRoot(
      header +
        [
          '  interface FilterMap {',
          '    /**',
          '     * Whether checkout may go on.',
          '     * @deprecated use store/checkout/verdict',
          '     */',
          "    'store/checkout/allowed': [",
          '      verdict: Verdict,',
          "      context: { cart: { items: Array<{ id: number; qty: number }> }; mode: 'a' | 'b' },",
          '    ];',
          '    // a trailing comment',
          '  }',
          '}',
          '',
        ].join('\n'),
    );
    const { entries, problems } = collectHooks(root);
    expect(problems).toEqual([]);
    expect(entries.find((e) => e.name === 'store/checkout/allowed')).toMatchObject({
      args: ['verdict: Verdict', "context: { cart: { items: Array<{ id: number; qty: number }> }; mode: 'a' | 'b' }"],
      description: 'Whether checkout may go on.',
      deprecated: 'use store/checkout/verdict',
    });
    // Pipes inside a type are escaped so the markdown table keeps its columns.
    expect(renderHooksDoc(root)).toContain("mode: 'a' \\| 'b' }` | **Deprecated: use store/checkout/verdict** Whether checkout may go on. |");
  });
});
