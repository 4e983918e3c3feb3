/**
 * Generates `hooks/HOOKS.md` from the typed hook catalogue (`hooks/index.ts`) and the host's own hooks
 * (`ActionMap` / `FilterMap` in `src/host/contract.ts`).
 *
 *   npm run hooks:doc             writes hooks/HOOKS.md
 *   node dist/scripts/hooks-doc.js --check    exits 1 when hooks/HOOKS.md is stale (writes nothing)
 *
 * There is no TypeScript compiler API to lean on (TypeScript 7 is native), so the two files are read as text:
 * inside every `interface ActionMap {` / `interface FilterMap {` block, each entry is a JSDoc description
 * followed by `'name': [label: Type, ...];`. The scanner understands nested brackets, strings and comments,
 * so argument types may span lines and contain `{ ...; ... }` object types.
 *
 * A malformed entry (no `/** description *\/`, no tuple type, a name outside its prefix, a hook declared twice)
 * is not silently skipped or rendered half-empty: `renderHooksDoc` throws a `HooksDocError` listing every
 * problem with its file and line, so the generator (and the test that checks the committed doc) fails loudly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { findPackageRoot } from '../src/host/paths';

export type HookKind = 'action' | 'filter';
export type HookSource = 'host' | 'store';

export interface HookEntry {
  name: string;
  kind: HookKind;
  source: HookSource;
  /** The tuple's elements as written, e.g. `['allowed: boolean', 'context: { user: HostUser; permission: string }']`. */
  args: string[];
  description: string;
  /** The `@deprecated` note ('' when it has none); null when the hook is not deprecated. */
  deprecated: string | null;
  /** `hooks/index.ts:12`, relative to the root. */
  location: string;
}

export interface HookCatalogue {
  entries: HookEntry[];
  problems: string[];
}

export class HooksDocError extends Error {
  constructor(readonly problems: string[]) {
    super(`hooks catalogue has ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'HooksDocError';
  }
}

/** Where the hooks are declared, and which prefix their names must carry. */
export const HOOK_SOURCES: ReadonlyArray<{ file: string; source: HookSource; prefix: string }> = [
  { file: 'src/host/contract.ts', source: 'host', prefix: 'host/' },
  { file: 'hooks/index.ts', source: 'store', prefix: 'store/' },
];

export const HOOKS_DOC = 'hooks/HOOKS.md';

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
const CLOSERS = new Set([')', ']', '}', '>']);

/** Index just after a quoted string starting at `i` (`'`, `"` or a template literal without nesting). */
function skipString(text: string, i: number): number {
  const quote = text[i];
  let j = i + 1;
  while (j < text.length && text[j] !== quote) j += text[j] === '\\' ? 2 : 1;
  return j + 1;
}

/** Index just after a comment starting at `i`, or `i` when there is none. */
function skipComment(text: string, i: number): number {
  if (text.startsWith('//', i)) {
    const end = text.indexOf('\n', i);
    return end < 0 ? text.length : end + 1;
  }
  if (text.startsWith('/*', i)) {
    const end = text.indexOf('*/', i + 2);
    return end < 0 ? text.length : end + 2;
  }
  return i;
}

/**
 * Reads from `start` to the first of `stops` at bracket depth 0 (or to the end), skipping strings and comments.
 * `=>` is not taken for a closing angle bracket.
 */
function readBalanced(text: string, start: number, stops: string[]): { value: string; end: number; stoppedAt: string | null } {
  const stack: string[] = [];
  let i = start;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "'" || ch === '"' || ch === '`') {
      i = skipString(text, i);
      continue;
    }
    const afterComment = skipComment(text, i);
    if (afterComment !== i) {
      i = afterComment;
      continue;
    }
    if (stack.length === 0 && stops.includes(ch)) return { value: text.slice(start, i), end: i, stoppedAt: ch };
    if (ch in OPENERS) stack.push(OPENERS[ch]);
    else if (CLOSERS.has(ch) && !(ch === '>' && text[i - 1] === '=')) {
      if (stack.length === 0) return { value: text.slice(start, i), end: i, stoppedAt: ch };
      if (stack[stack.length - 1] === ch) stack.pop();
    }
    i++;
  }
  return { value: text.slice(start), end: text.length, stoppedAt: null };
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < text.length; i++) if (text[i] === '\n') line++;
  return line;
}

/** The text of a JSDoc comment: leading `*` removed, lines joined, `@tags` taken apart. */
function parseJsDoc(comment: string): { description: string; deprecated: string | null } {
  const lines = comment
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*?\s?/, '').trim());
  const text: string[] = [];
  let deprecated: string[] | null = null;
  let tag: string | null = null;
  for (const line of lines) {
    if (line.startsWith('@')) {
      tag = /^@(\w+)/.exec(line)?.[1] ?? '';
      if (tag === 'deprecated') {
        deprecated = [];
        const rest = line.replace(/^@deprecated\s*/, '');
        if (rest) deprecated.push(rest);
      }
      continue;
    }
    if (tag === null) text.push(line);
    else if (tag === 'deprecated') deprecated!.push(line);
  }
  const join = (parts: string[]) => parts.join(' ').replace(/\s+/g, ' ').trim();
  return { description: join(text), deprecated: deprecated && join(deprecated) };
}

/** Splits a tuple type `[a: A, b: { x: X; y: Y }]` into its elements. */
function tupleElements(type: string): string[] | null {
  const trimmed = type.trim();
  if (!trimmed.startsWith('[')) return null;
  const { end, stoppedAt } = readBalanced(trimmed, 1, [']']);
  if (stoppedAt !== ']' || trimmed.slice(end + 1).trim() !== '') return null;
  const inner = trimmed.slice(1, end);
  const elements: string[] = [];
  let i = 0;
  while (i < inner.length) {
    const part = readBalanced(inner, i, [',']);
    const value = part.value.replace(/\s+/g, ' ').trim();
    if (value) elements.push(value);
    i = part.end + 1;
  }
  return elements;
}

/** Every `interface <name> {` block in a file: the body's text and where it starts. */
function interfaceBodies(text: string, name: string): Array<{ body: string; offset: number }> {
  const bodies: Array<{ body: string; offset: number }> = [];
  const pattern = new RegExp(`\\binterface\\s+${name}\\s*(?:<[^>{]*>\\s*)?(?:extends[^{]*)?\\{`, 'g');
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const start = match.index + match[0].length;
    const { end, stoppedAt } = readBalanced(text, start, []);
    if (stoppedAt !== '}') continue;
    bodies.push({ body: text.slice(start, end), offset: start });
    pattern.lastIndex = end;
  }
  return bodies;
}

/** Removes comments and strings so a declaration inside them (as in a doc comment's example) is not mistaken for a block. */
function blankCommentsAndStrings(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    const next = ch === "'" || ch === '"' || ch === '`' ? skipString(text, i) : skipComment(text, i);
    if (next !== i) {
      // Keep strings (hook names are strings) but blank comments, preserving length and newlines.
      out += ch === "'" || ch === '"' || ch === '`' ? text.slice(i, next) : text.slice(i, next).replace(/[^\n]/g, ' ');
      i = next;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}

/** Parses the entries of one interface body; comments before an entry are its description. */
function parseBody(text: string, body: string, offset: number, kind: HookKind, file: string, source: HookSource, problems: string[]): HookEntry[] {
  const entries: HookEntry[] = [];
  let i = 0;
  let doc: string | null = null;
  while (i < body.length) {
    if (/\s/.test(body[i])) {
      i++;
      continue;
    }
    if (body.startsWith('/**', i) && !body.startsWith('/**/', i)) {
      const end = skipComment(body, i);
      doc = body.slice(i, end);
      i = end;
      continue;
    }
    const afterComment = skipComment(body, i);
    if (afterComment !== i) {
      i = afterComment;
      continue;
    }
    const at = `${file}:${lineAt(text, offset + i)}`;
    let name: string;
    let keyEnd: number;
    if (body[i] === "'" || body[i] === '"') {
      keyEnd = skipString(body, i);
      name = body.slice(i + 1, keyEnd - 1);
    } else {
      const ident = /^[A-Za-z_$][\w$]*/.exec(body.slice(i));
      if (!ident) {
        const skipped = readBalanced(body, i, [';', '\n']);
        problems.push(`${at}: cannot read "${skipped.value.trim().slice(0, 60)}" as a hook entry ('name': [args];)`);
        i = skipped.end + 1;
        doc = null;
        continue;
      }
      name = ident[0];
      keyEnd = i + name.length;
    }
    let j = keyEnd;
    while (j < body.length && /\s/.test(body[j])) j++;
    if (body[j] === '?') j++;
    while (j < body.length && /\s/.test(body[j])) j++;
    const hasType = body[j] === ':';
    if (hasType) j++;
    while (j < body.length && /\s/.test(body[j])) j++;
    let value: string;
    if (hasType && body[j] === '[') {
      // A tuple: up to its closing bracket; the entry then ends at `;`, `,` or the end of the line.
      const tuple = readBalanced(body, j + 1, [']']);
      value = body.slice(j, tuple.end + 1);
      let k = tuple.end + 1;
      while (k < body.length && (body[k] === ' ' || body[k] === '\t')) k++;
      if (k < body.length && body[k] !== ';' && body[k] !== ',' && body[k] !== '\n') {
        const rest = readBalanced(body, k, [';', ',', '\n']);
        value += body.slice(k, rest.end);
        k = rest.end;
      }
      i = k + 1;
    } else {
      const rest = readBalanced(body, j, [';', ',', '\n']);
      value = rest.value;
      i = rest.end + 1;
    }
    const description = doc ? parseJsDoc(doc) : null;
    doc = null;
    if (!hasType || !value.trim()) {
      problems.push(`${at}: '${name}' has no type (expected '${name}': [args];)`);
      continue;
    }
    const args = tupleElements(value);
    if (!args) problems.push(`${at}: '${name}' must be a tuple of labelled arguments, e.g. [order: Order], not "${value.replace(/\s+/g, ' ').trim()}"`);
    if (!description?.description) problems.push(`${at}: '${name}' has no description (add a /** one-line description */ above it)`);
    entries.push({
      name,
      kind,
      source,
      args: args ?? [],
      description: description?.description ?? '',
      deprecated: description?.deprecated ?? null,
      location: at,
    });
  }
  return entries;
}

/** Reads the hooks of every source file under `root`; malformed entries are listed in `problems`. */
export function collectHooks(root: string): HookCatalogue {
  const entries: HookEntry[] = [];
  const problems: string[] = [];
  for (const { file, source, prefix } of HOOK_SOURCES) {
    const full = path.join(root, file);
    if (!fs.existsSync(full)) {
      problems.push(`${file}: not found`);
      continue;
    }
    const text = fs.readFileSync(full, 'utf8').replace(/\r\n/g, '\n');
    const scannable = blankCommentsAndStrings(text);
    for (const [kind, map] of [
      ['action', 'ActionMap'],
      ['filter', 'FilterMap'],
    ] as const) {
      for (const { offset } of interfaceBodies(scannable, map)) {
        const { end } = readBalanced(text, offset, []);
        const found = parseBody(text, text.slice(offset, end), offset, kind, file, source, problems);
        for (const entry of found) {
          if (!entry.name.startsWith(prefix) || entry.name.length === prefix.length) {
            problems.push(`${entry.location}: '${entry.name}' is declared in ${file}, so its name must start with '${prefix}'`);
          }
        }
        entries.push(...found);
      }
    }
  }
  const seen = new Map<string, HookEntry>();
  for (const entry of entries) {
    const earlier = seen.get(entry.name);
    if (earlier) problems.push(`${entry.location}: '${entry.name}' is already declared at ${earlier.location}`);
    else seen.set(entry.name, entry);
  }
  return { entries: [...seen.values()], problems };
}

/** A table cell: one line, pipes escaped (GitHub tables split on `|` even inside code spans). */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
}

function code(text: string): string {
  return `\`${text}\``;
}

function byName(a: HookEntry, b: HookEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function table(entries: HookEntry[], kind: HookKind): string[] {
  const argsHeader = kind === 'filter' ? 'Arguments (the first is the filtered value)' : 'Arguments';
  const rows = [`| Hook | ${argsHeader} | Description | From |`, '| --- | --- | --- | --- |'];
  for (const entry of entries.filter((e) => e.kind === kind).sort(byName)) {
    const args = entry.args.length ? entry.args.map((arg) => code(arg)).join(', ') : '(none)';
    const description =
      entry.deprecated === null ? entry.description : `**Deprecated${entry.deprecated ? `: ${entry.deprecated}` : '.'}** ${entry.description}`;
    rows.push(`| ${cell(code(entry.name))} | ${cell(args)} | ${cell(description)} | ${entry.source} |`);
  }
  if (rows.length === 2) rows.push(`| (none) | | | |`);
  return rows;
}

/** The whole document for the hooks under `root`; throws `HooksDocError` when an entry is malformed. */
export function renderHooksDoc(root: string): string {
  const { entries, problems } = collectHooks(root);
  if (problems.length) throw new HooksDocError(problems);
  const actions = entries.filter((e) => e.kind === 'action').length;
  const filters = entries.length - actions;
  const lines = [
    '# Store hooks',
    '',
    '<!-- Generated by `npm run hooks:doc` from hooks/index.ts and src/host/contract.ts. Do not edit by hand. -->',
    '',
    'Extensions change what the store does through hooks, without touching its code. An **action** tells you',
    'that something happened (listeners run after the change is committed); a **filter** lets you change a',
    'value on its way through. Store hooks are named `store/<resource>/<event>`; `host/...` hooks belong to',
    'the host runtime. The types come from `hooks/index.ts` (store) and `src/host/contract.ts` (host), so the',
    'names and arguments below are checked by the compiler when you listen.',
    '',
    '## Listening',
    '',
    '```ts',
    "import type { Host } from '<store>/src/host/contract';",
    "import '<store>/hooks'; // the typed catalogue of store/... hooks",
    '',
    'export function register(host: Host): void {',
    "  const off = host.hooks.addAction('store/user/logged_in', (user) => {",
    "    host.logger.info({ userId: user.id }, 'customer logged in');",
    "  }, { priority: 20, namespace: 'my-extension' });",
    '',
    "  host.hooks.addFilter('store/user/can', (allowed, { user, permission }) =>",
    "    permission === 'reports/view' && user.roles.includes('accountant') ? true : allowed,",
    "  { namespace: 'my-extension' });",
    '',
    '  off(); // unsubscribe one listener',
    "  host.hooks.removeNamespace('my-extension'); // or every listener of the extension at once",
    '}',
    '```',
    '',
    '- `host.hooks.addAction(name, fn, { priority, namespace })` and `host.hooks.addFilter(name, fn, { priority, namespace })`',
    '  both return an unsubscribe function. Lower `priority` runs first (default 10); equal priorities run in the',
    "  order they were added. `namespace` groups an extension's listeners for `removeNamespace`.",
    '- A filter listener receives the current value followed by the context arguments and returns the value',
    '  (changed or not). Filters applied with `applyFilters` are synchronous: a listener returning a promise is',
    '  logged and ignored.',
    '- A listener that throws is logged and skipped; the request goes on. Async action listeners are not',
    '  awaited unless the store fires the action with `doActionAsync`.',
    '- **Vetoes** are filters over a `Verdict` (`{ ok: true }` or `{ ok: false, status, code, message }`): return',
    '  a refusal to stop the operation, or pass the verdict you were given through unchanged, so an earlier',
    '  refusal is never turned back into a yes by accident.',
    '',
    '```ts',
    "import type { Verdict } from '<store>/src/host/contract';",
    '',
    '// A listener on a veto filter (its value is a Verdict; see the Filters table):',
    'const closedOnSundays = (verdict: Verdict): Verdict =>',
    "  verdict.ok && new Date().getUTCDay() === 0 ? { ok: false, status: 403, code: 'store_closed', message: 'The store is closed on Sundays.' } : verdict;",
    '```',
    '',
    '- **Role vetoes** (`store/role/before_assign`, `store/role/before_remove`) are actions the store awaits before the',
    '  change: a listener refuses it by calling `veto.reject(message, status?)` (a 4xx, default 403; the first refusal',
    '  wins), which the API answers in the role envelope and the CLI as its error. A listener that throws does not veto.',
    '',
    `## Actions (${actions})`,
    '',
    ...table(entries, 'action'),
    '',
    `## Filters (${filters})`,
    '',
    ...table(entries, 'filter'),
    '',
  ];
  return lines.join('\n');
}

function main(argv: string[]): void {
  const root = findPackageRoot(__dirname);
  const target = path.join(root, HOOKS_DOC);
  let doc: string;
  try {
    doc = renderHooksDoc(root);
  } catch (error) {
    if (error instanceof HooksDocError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
  if (argv.includes('--check')) {
    if (current !== doc) {
      console.error(`${HOOKS_DOC} is out of date; run npm run hooks:doc`);
      process.exit(1);
    }
    console.log(`${HOOKS_DOC} is up to date`);
    return;
  }
  if (current === doc) {
    console.log(`${HOOKS_DOC} is up to date`);
    return;
  }
  fs.writeFileSync(target, doc);
  console.log(`wrote ${HOOKS_DOC}`);
}

if (require.main === module) main(process.argv.slice(2));
