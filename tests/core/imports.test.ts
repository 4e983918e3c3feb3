/**
 * Imports run one way: no cycle between module folders (`src/modules/<name>/`) and none between the files (and
 * subfolders) of `src/core/`. Type-only imports count too: a cycle of types still ties two parts together.
 */
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(__dirname, '../../src');
/** `import … from 'x'`, `export … from 'x'`, `import 'x'`, `import('x')`, `require('x')`. */
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]|\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

type Graph = Map<string, Set<string>>;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative imports of a file, as absolute paths without extension. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)]
    .map((m) => m[1] ?? m[2] ?? m[3])
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.resolve(path.dirname(file), spec));
}

/** A graph over the parts `partOf` names (null: not a part), with an edge for every import from one part into another. */
function graphOf(files: string[], partOf: (file: string) => string | null): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const from = partOf(file);
    if (!from) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    for (const target of importsOf(file)) {
      const to = partOf(target);
      if (to && to !== from) graph.get(from)!.add(to);
    }
  }
  return graph;
}

/** Every cycle found by a depth-first walk, each as `a → b → a`. */
function cycles(graph: Graph): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const walk = (node: string, stack: string[]) => {
    if (stack.includes(node)) return void found.push([...stack.slice(stack.indexOf(node)), node].join(' → '));
    if (done.has(node)) return;
    for (const next of graph.get(node) ?? []) walk(next, [...stack, node]);
    done.add(node);
  };
  for (const node of graph.keys()) walk(node, []);
  return found;
}

const relative = (file: string) => path.relative(SRC, file).split(path.sep);

describe('import direction', () => {
  const files = sourceFiles(SRC);

  it('no module folder imports one that imports it back (src/modules/*)', () => {
    const graph = graphOf(files, (file) => {
      const [top, name] = relative(file);
      return top === 'modules' && name && !name.endsWith('.ts') ? name : null;
    });
    expect(graph.get('orders')).toContain('customers');
    expect(cycles(graph)).toEqual([]);
  });

  it('no cycle between the files of src/core (a subfolder counts as one part)', () => {
    const graph = graphOf(files, (file) => {
      const [top, name] = relative(file);
      return top === 'core' && name ? name.replace(/\.ts$/, '') : null;
    });
    expect(graph.get('context')).toContain('ratelimit');
    expect(cycles(graph)).toEqual([]);
  });

  it('the walk reports a cycle when there is one', () => {
    const graph: Graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cycles(graph)).toEqual(['a → b → c → a']);
  });
});
