/**
 * HookBus: the typed action/filter bus of the host (`src/host/hooks/bus.ts`).
 *
 * - Actions notify (`doAction`, `doActionAsync`); filters transform a value (`applyFilters`, `applyFiltersAsync`).
 * - Listeners run by priority (default 10, lower first); equal priorities run in insertion order.
 * - A failing listener is logged and skipped; the caller never sees the error.
 * - `addAction`/`addFilter` return an unsubscribe function; `removeNamespace` drops a group of listeners.
 * - Hook names are typed: they must exist in `ActionMap` / `FilterMap` (declaration merging, as below).
 */
import type { Logger, Verdict } from '../../src/host/contract';
import { HookBus } from '../../src/host/hooks/bus';

declare module '../../src/host/contract' {
  interface ActionMap {
    'test/ping': [];
    'test/order/paid': [orderId: number, amount: number];
    'test/other': [];
    'test/nested/a/b/c': [label: string];
  }
  interface FilterMap {
    'test/number': [value: number, context: { step: number }];
    'test/label': [label: string];
    'test/checkout/verdict': [verdict: Verdict, context: { total: number }];
  }
}

/** A logger that records what it was told. */
class RecordingLogger implements Logger {
  readonly calls: Array<{ level: 'debug' | 'info' | 'warn' | 'error'; obj: unknown; msg?: string }> = [];
  debug(obj: unknown, msg?: string) {
    this.calls.push({ level: 'debug', obj, msg });
  }
  info(obj: unknown, msg?: string) {
    this.calls.push({ level: 'info', obj, msg });
  }
  warn(obj: unknown, msg?: string) {
    this.calls.push({ level: 'warn', obj, msg });
  }
  error(obj: unknown, msg?: string) {
    this.calls.push({ level: 'error', obj, msg });
  }
  errors() {
    return this.calls.filter((c) => c.level === 'error');
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

let logger: RecordingLogger;
let bus: HookBus;

beforeEach(() => {
  logger = new RecordingLogger();
  bus = new HookBus(logger);
});

describe('actions', () => {
  it('passes the action arguments to every listener', () => {
    const seen: Array<[number, number]> = [];
    bus.addAction('test/order/paid', (id, amount) => void seen.push([id, amount]));
    bus.addAction('test/order/paid', (id, amount) => void seen.push([id * 10, amount * 10]));
    bus.doAction('test/order/paid', 7, 1999);
    expect(seen).toEqual([
      [7, 1999],
      [70, 19990],
    ]);
  });

  it('does nothing (and does not throw) when nobody listens', () => {
    expect(() => bus.doAction('test/ping')).not.toThrow();
    expect(bus.hasListeners('test/ping')).toBe(false);
  });

  it('keeps listeners of different hooks apart', () => {
    const seen: string[] = [];
    bus.addAction('test/ping', () => void seen.push('ping'));
    bus.addAction('test/other', () => void seen.push('other'));
    bus.doAction('test/ping');
    expect(seen).toEqual(['ping']);
  });

  it('treats names with several `/` as ordinary names (no hierarchy, no wildcards)', () => {
    const fired: string[] = [];
    bus.addAction('test/nested/a/b/c', (label) => void fired.push(label));
    bus.addAction('test/order/paid', () => void fired.push('paid'));
    bus.doAction('test/nested/a/b/c', 'deep');
    expect(fired).toEqual(['deep']);
    expect(bus.did('test/nested/a/b/c')).toBe(1);
    expect(bus.did('test/order/paid')).toBe(0);
  });

  it('does not await async listeners in doAction (fire and forget)', async () => {
    const seen: string[] = [];
    bus.addAction('test/ping', async () => {
      await tick();
      seen.push('async done');
    });
    bus.doAction('test/ping');
    seen.push('caller continues');
    await tick();
    await tick();
    expect(seen).toEqual(['caller continues', 'async done']);
  });
});

describe('priorities', () => {
  it.each<{ title: string; listeners: Array<[label: string, priority?: number]>; order: string[] }>([
    { title: 'insertion order when all use the default priority', listeners: [['a'], ['b'], ['c']], order: ['a', 'b', 'c'] },
    { title: 'lower priority first', listeners: [['late', 20], ['early', 5], ['default']], order: ['early', 'default', 'late'] },
    {
      title: 'the default is 10 (ties with an explicit 10 keep insertion order)',
      listeners: [['explicit-10', 10], ['default'], ['nine', 9], ['eleven', 11]],
      order: ['nine', 'explicit-10', 'default', 'eleven'],
    },
    {
      title: 'equal priorities in insertion order',
      listeners: [
        ['x', 1],
        ['y', 1],
        ['z', 1],
        ['first', 0],
      ],
      order: ['first', 'x', 'y', 'z'],
    },
    {
      title: 'negative priorities run before zero',
      listeners: [
        ['zero', 0],
        ['minus', -100],
      ],
      order: ['minus', 'zero'],
    },
  ])('actions: $title', ({ listeners, order }) => {
    const seen: string[] = [];
    for (const [label, priority] of listeners) bus.addAction('test/ping', () => void seen.push(label), priority === undefined ? undefined : { priority });
    bus.doAction('test/ping');
    expect(seen).toEqual(order);
  });

  it.each<{ title: string; listeners: Array<[suffix: string, priority?: number]>; result: string }>([
    { title: 'filters chain in priority order', listeners: [['-20', 20], ['-5', 5], ['-10']], result: 'v-5-10-20' },
    { title: 'equal priorities chain in insertion order', listeners: [['-a'], ['-b'], ['-c']], result: 'v-a-b-c' },
  ])('$title', ({ listeners, result }) => {
    for (const [suffix, priority] of listeners) bus.addFilter('test/label', (label) => label + suffix, priority === undefined ? undefined : { priority });
    expect(bus.applyFilters('test/label', 'v')).toBe(result);
  });

  it('orders listeners added later by priority too', () => {
    const seen: string[] = [];
    bus.addAction('test/ping', () => void seen.push('default'));
    bus.doAction('test/ping');
    bus.addAction('test/ping', () => void seen.push('urgent'), { priority: 1 });
    seen.length = 0;
    bus.doAction('test/ping');
    expect(seen).toEqual(['urgent', 'default']);
  });
});

describe('unsubscribe and namespaces', () => {
  it('addAction returns a function that removes exactly that listener', () => {
    const seen: string[] = [];
    bus.addAction('test/ping', () => void seen.push('stays'));
    const off = bus.addAction('test/ping', () => void seen.push('goes'));
    off();
    bus.doAction('test/ping');
    expect(seen).toEqual(['stays']);
  });

  it('addFilter returns a function that removes exactly that listener', () => {
    const off = bus.addFilter('test/number', (n) => n * 100);
    bus.addFilter('test/number', (n, { step }) => n + step);
    expect(bus.applyFilters('test/number', 1, { step: 1 })).toBe(101);
    off();
    expect(bus.applyFilters('test/number', 1, { step: 1 })).toBe(2);
  });

  it('unsubscribing twice is harmless', () => {
    const off = bus.addAction('test/ping', () => undefined);
    off();
    expect(() => off()).not.toThrow();
    expect(bus.hasListeners('test/ping')).toBe(false);
  });

  it('the same function added twice is two listeners; each unsubscribe removes one', () => {
    let calls = 0;
    const listener = () => void calls++;
    const offFirst = bus.addAction('test/ping', listener);
    bus.addAction('test/ping', listener);
    bus.doAction('test/ping');
    expect(calls).toBe(2);
    offFirst();
    bus.doAction('test/ping');
    expect(calls).toBe(3);
  });

  it('removeNamespace removes every listener of that namespace, on actions and filters, and says how many', () => {
    const seen: string[] = [];
    bus.addAction('test/ping', () => void seen.push('ext'), { namespace: 'my-extension' });
    bus.addAction('test/other', () => void seen.push('ext-other'), { namespace: 'my-extension' });
    bus.addFilter('test/label', (l) => `${l}+ext`, { namespace: 'my-extension' });
    bus.addAction('test/ping', () => void seen.push('core'));
    bus.addAction('test/ping', () => void seen.push('other-ext'), { namespace: 'other-extension' });

    expect(bus.removeNamespace('my-extension')).toBe(3);

    bus.doAction('test/ping');
    bus.doAction('test/other');
    expect(seen).toEqual(['core', 'other-ext']);
    expect(bus.applyFilters('test/label', 'v')).toBe('v');
    expect(bus.hasListeners('test/other')).toBe(false);
    expect(bus.hasListeners('test/ping')).toBe(true);
  });

  it.each([
    ['an unknown namespace', 'nobody'],
    ['the empty string (listeners without a namespace are not in it)', ''],
  ])('removeNamespace of %s removes nothing', (_title, namespace) => {
    bus.addAction('test/ping', () => undefined);
    bus.addAction('test/ping', () => undefined, { namespace: 'ext' });
    expect(bus.removeNamespace(namespace)).toBe(0);
    expect(bus.hasListeners('test/ping')).toBe(true);
  });

  it('a listener removed while its hook runs still runs this time (the run uses a snapshot) and not the next', () => {
    const seen: string[] = [];
    let offSecond: () => void = () => undefined;
    bus.addAction('test/ping', () => {
      seen.push('first');
      offSecond();
    });
    offSecond = bus.addAction('test/ping', () => void seen.push('second'));
    bus.doAction('test/ping');
    bus.doAction('test/ping');
    expect(seen).toEqual(['first', 'second', 'first']);
  });

  it('a listener added while its hook runs takes effect on the next run', () => {
    const seen: string[] = [];
    bus.addAction('test/ping', () => {
      seen.push('outer');
      if (seen.length === 1) bus.addAction('test/ping', () => void seen.push('added'));
    });
    bus.doAction('test/ping');
    expect(seen).toEqual(['outer']);
    bus.doAction('test/ping');
    expect(seen).toEqual(['outer', 'outer', 'added']);
  });
});

describe('filters', () => {
  it('passes the value through each listener, with the context arguments', () => {
    bus.addFilter('test/number', (n, { step }) => n + step);
    bus.addFilter('test/number', (n, { step }) => n * step);
    expect(bus.applyFilters('test/number', 1, { step: 3 })).toBe(12);
  });

  it('returns the value unchanged when nobody listens', () => {
    expect(bus.applyFilters('test/label', 'unchanged')).toBe('unchanged');
  });

  it('applyFiltersAsync awaits each listener in order and feeds its result to the next', async () => {
    const seen: string[] = [];
    bus.addFilter('test/label', async (label) => {
      await tick();
      seen.push('slow');
      return `${label}-slow`;
    });
    bus.addFilter('test/label', (label) => {
      seen.push('sync');
      return `${label}-sync`;
    });
    await expect(bus.applyFiltersAsync('test/label', 'v')).resolves.toBe('v-slow-sync');
    expect(seen).toEqual(['slow', 'sync']);
  });

  it('applyFilters with an async listener logs an error and keeps the value it had', () => {
    bus.addFilter('test/label', (label) => `${label}-a`);
    bus.addFilter('test/label', async (label) => `${label}-async`);
    bus.addFilter('test/label', (label) => `${label}-c`);
    expect(bus.applyFilters('test/label', 'v')).toBe('v-a-c');
    expect(logger.errors()).toHaveLength(1);
    expect(logger.errors()[0]).toMatchObject({ obj: { hook: 'test/label' } });
    expect(String((logger.errors()[0].obj as { err: Error }).err.message)).toMatch(/applyFiltersAsync/);
  });

  it.each([
    ['applyFilters', (b: HookBus) => Promise.resolve(b.applyFilters('test/number', 1, { step: 1 }))],
    ['applyFiltersAsync', (b: HookBus) => b.applyFiltersAsync('test/number', 1, { step: 1 })],
  ] as const)('%s: a throwing listener is logged and skipped; the value goes on from the previous listener', async (_name, apply) => {
    bus.addFilter('test/number', (n) => n + 1);
    bus.addFilter('test/number', () => {
      throw new Error('broken extension');
    });
    bus.addFilter('test/number', async () => {
      throw new Error('broken async extension');
    });
    bus.addFilter('test/number', (n) => n * 10, { priority: 20 });
    const result = await apply(bus);
    expect(result).toBe(20);
    expect(logger.errors().length).toBeGreaterThanOrEqual(2);
    expect(logger.errors().every((c) => (c.obj as { hook: string }).hook === 'test/number')).toBe(true);
  });
});

describe('a veto: a filter over a Verdict', () => {
  const refusal: Verdict = { ok: false, status: 422, code: 'minimum_order', message: 'The minimum order is 10.00.' };

  beforeEach(() => {
    bus.addFilter('test/checkout/verdict', (verdict, { total }) => (verdict.ok && total < 1000 ? refusal : verdict));
  });

  it.each<{ total: number; verdict: Verdict }>([
    { total: 999, verdict: refusal },
    { total: 1000, verdict: { ok: true } },
    { total: 5000, verdict: { ok: true } },
  ])('total $total → $verdict.ok', ({ total, verdict }) => {
    expect(bus.applyFilters('test/checkout/verdict', { ok: true }, { total })).toEqual(verdict);
  });

  it('a later listener sees the refusal and can keep it (refusals stick unless a listener overrides them)', () => {
    const seen: Verdict[] = [];
    bus.addFilter('test/checkout/verdict', (verdict) => {
      seen.push(verdict);
      return verdict;
    });
    const result = bus.applyFilters('test/checkout/verdict', { ok: true }, { total: 1 });
    expect(seen).toEqual([refusal]);
    expect(result).toEqual({ ok: false, status: 422, code: 'minimum_order', message: 'The minimum order is 10.00.' });
  });

  it('works the same through applyFiltersAsync', async () => {
    await expect(bus.applyFiltersAsync('test/checkout/verdict', { ok: true }, { total: 1 })).resolves.toEqual(refusal);
  });
});

describe('failing action listeners', () => {
  it('doAction: a throwing listener is logged, the others still run, the caller does not throw', () => {
    const seen: string[] = [];
    const boom = new Error('listener exploded');
    bus.addAction('test/ping', () => void seen.push('before'));
    bus.addAction('test/ping', () => {
      throw boom;
    });
    bus.addAction('test/ping', () => void seen.push('after'));
    expect(() => bus.doAction('test/ping')).not.toThrow();
    expect(seen).toEqual(['before', 'after']);
    expect(logger.errors()).toEqual([{ level: 'error', obj: { err: boom, hook: 'test/ping' }, msg: 'hook listener failed: test/ping' }]);
  });

  it('doAction: a rejected async listener is logged once it settles', async () => {
    const boom = new Error('async listener exploded');
    bus.addAction('test/ping', async () => {
      throw boom;
    });
    expect(() => bus.doAction('test/ping')).not.toThrow();
    await tick();
    expect(logger.errors()).toEqual([expect.objectContaining({ obj: { err: boom, hook: 'test/ping' } })]);
  });

  it.each([
    [
      'throws synchronously',
      () => {
        throw new Error('sync');
      },
    ],
    [
      'rejects',
      async () => {
        await tick();
        throw new Error('async');
      },
    ],
  ])('doActionAsync: a listener that %s is logged, the others still run, the promise resolves', async (_title, failing) => {
    const seen: string[] = [];
    bus.addAction('test/ping', () => void seen.push('before'));
    bus.addAction('test/ping', failing);
    bus.addAction('test/ping', () => void seen.push('after'));
    await expect(bus.doActionAsync('test/ping')).resolves.toBeUndefined();
    expect(seen).toEqual(['before', 'after']);
    expect(logger.errors()).toHaveLength(1);
    expect(logger.errors()[0].obj).toMatchObject({ hook: 'test/ping' });
  });
});

describe('doActionAsync', () => {
  it('awaits each listener before starting the next, then resolves', async () => {
    const seen: string[] = [];
    bus.addAction('test/order/paid', async (id) => {
      seen.push(`start ${id}`);
      await tick();
      await tick();
      seen.push(`end ${id}`);
    });
    bus.addAction('test/order/paid', async () => {
      seen.push('second');
    });
    await bus.doActionAsync('test/order/paid', 3, 100);
    expect(seen).toEqual(['start 3', 'end 3', 'second']);
  });
});

describe('did and doing', () => {
  it.each([
    ['doAction', (b: HookBus) => b.doAction('test/ping')],
    ['doActionAsync', (b: HookBus) => b.doActionAsync('test/ping')],
  ] as const)('did counts runs of %s, listeners or not', async (_name, fire) => {
    expect(bus.did('test/ping')).toBe(0);
    await fire(bus);
    await fire(bus);
    expect(bus.did('test/ping')).toBe(2);
    bus.addAction('test/ping', () => undefined);
    await fire(bus);
    expect(bus.did('test/ping')).toBe(3);
    expect(bus.did('test/other')).toBe(0);
  });

  it('did counts filter runs too', () => {
    bus.applyFilters('test/label', 'x');
    expect(bus.did('test/label')).toBe(1);
  });

  it('doing is true inside a listener and false after', () => {
    const inside: Array<[boolean, boolean, boolean]> = [];
    bus.addAction('test/ping', () => void inside.push([bus.doing('test/ping'), bus.doing(), bus.doing('test/other')]));
    expect(bus.doing('test/ping')).toBe(false);
    bus.doAction('test/ping');
    expect(inside).toEqual([[true, true, false]]);
    expect(bus.doing('test/ping')).toBe(false);
    expect(bus.doing()).toBe(false);
  });

  it('doing is true across awaits inside doActionAsync and false once it resolves', async () => {
    const inside: boolean[] = [];
    bus.addAction('test/ping', async () => {
      await tick();
      inside.push(bus.doing('test/ping'));
    });
    const running = bus.doActionAsync('test/ping');
    expect(bus.doing('test/ping')).toBe(true);
    await running;
    expect(inside).toEqual([true]);
    expect(bus.doing('test/ping')).toBe(false);
  });

  it('doing is true inside a filter listener and false after, and after a listener throws', () => {
    const inside: boolean[] = [];
    bus.addFilter('test/label', (label) => {
      inside.push(bus.doing('test/label'));
      throw new Error(label);
    });
    bus.applyFilters('test/label', 'x');
    expect(inside).toEqual([true]);
    expect(bus.doing('test/label')).toBe(false);
  });

  it('nested hooks: the outer one is still running while the inner one runs', () => {
    const inside: Array<[boolean, boolean]> = [];
    bus.addAction('test/other', () => void inside.push([bus.doing('test/ping'), bus.doing('test/other')]));
    bus.addAction('test/ping', () => bus.doAction('test/other'));
    bus.doAction('test/ping');
    expect(inside).toEqual([[true, true]]);
    expect(bus.doing()).toBe(false);
  });
});

describe('types', () => {
  it('hook names and arguments are checked at compile time (tsc --noEmit)', () => {
    const fire = () => {
      // @ts-expect-error: 'test/pnig' is not in ActionMap
      bus.addAction('test/pnig', () => undefined);
      // @ts-expect-error: 'test/lable' is not in FilterMap
      bus.applyFilters('test/lable', 'x');
      // @ts-expect-error: test/order/paid takes (orderId: number, amount: number)
      bus.doAction('test/order/paid', '7', 100);
      // @ts-expect-error: a filter listener must return the filtered value's type
      bus.addFilter('test/number', () => 'not a number');
    };
    // Misspelt names are harmless at run time: they are just hooks nobody fires.
    expect(fire).not.toThrow();
    expect(bus.hasListeners('test/ping')).toBe(false);
  });
});
