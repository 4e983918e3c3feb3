import type { ActionMap, ActionName, FilterArgs, FilterName, FilterValue, HookOptions, Hooks, Logger, Unsubscribe } from '../contract';

type Listener = (...args: unknown[]) => unknown;

interface Entry {
  listener: Listener;
  priority: number;
  namespace: string | undefined;
  seq: number;
}

const DEFAULT_PRIORITY = 10;

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** The typed action/filter bus. Actions and filters share one listener table keyed by name. */
export class HookBus implements Hooks {
  private readonly entries = new Map<string, Entry[]>();
  private readonly runs = new Map<string, number>();
  private readonly running: string[] = [];
  private seq = 0;

  constructor(private readonly logger: Logger) {}

  addAction<N extends ActionName>(name: N, listener: (...args: ActionMap[N]) => void | Promise<void>, options?: HookOptions): Unsubscribe {
    return this.add(name, listener as Listener, options);
  }

  addFilter<N extends FilterName>(
    name: N,
    listener: (value: FilterValue<N>, ...args: FilterArgs<N>) => FilterValue<N> | Promise<FilterValue<N>>,
    options?: HookOptions,
  ): Unsubscribe {
    return this.add(name, listener as Listener, options);
  }

  doAction<N extends ActionName>(name: N, ...args: ActionMap[N]): void {
    this.run(name, () => {
      for (const entry of this.listeners(name)) {
        try {
          const result = entry.listener(...args);
          if (isPromise(result)) result.catch((error: unknown) => this.fail(name, error));
        } catch (error) {
          this.fail(name, error);
        }
      }
    });
  }

  async doActionAsync<N extends ActionName>(name: N, ...args: ActionMap[N]): Promise<void> {
    await this.runAsync(name, async () => {
      for (const entry of this.listeners(name)) {
        try {
          await entry.listener(...args);
        } catch (error) {
          this.fail(name, error);
        }
      }
    });
  }

  applyFilters<N extends FilterName>(name: N, value: FilterValue<N>, ...args: FilterArgs<N>): FilterValue<N> {
    let current = value;
    this.run(name, () => {
      for (const entry of this.listeners(name)) {
        try {
          const next = entry.listener(current, ...args);
          if (isPromise(next)) {
            next.catch(() => undefined);
            throw new Error(`async listener on the synchronous filter ${name}; use applyFiltersAsync`);
          }
          current = next as FilterValue<N>;
        } catch (error) {
          this.fail(name, error);
        }
      }
    });
    return current;
  }

  async applyFiltersAsync<N extends FilterName>(name: N, value: FilterValue<N>, ...args: FilterArgs<N>): Promise<FilterValue<N>> {
    let current = value;
    await this.runAsync(name, async () => {
      for (const entry of this.listeners(name)) {
        try {
          current = (await entry.listener(current, ...args)) as FilterValue<N>;
        } catch (error) {
          this.fail(name, error);
        }
      }
    });
    return current;
  }

  removeNamespace(namespace: string): number {
    let removed = 0;
    for (const [name, list] of this.entries) {
      const kept = list.filter((entry) => entry.namespace !== namespace);
      removed += list.length - kept.length;
      this.entries.set(name, kept);
    }
    return removed;
  }

  hasListeners(name: ActionName | FilterName): boolean {
    return (this.entries.get(name)?.length ?? 0) > 0;
  }

  did(name: ActionName | FilterName): number {
    return this.runs.get(name) ?? 0;
  }

  doing(name?: ActionName | FilterName): boolean {
    return name === undefined ? this.running.length > 0 : this.running.includes(name);
  }

  private add(name: string, listener: Listener, options: HookOptions = {}): Unsubscribe {
    const entry: Entry = { listener, priority: options.priority ?? DEFAULT_PRIORITY, namespace: options.namespace, seq: this.seq++ };
    const list = [...(this.entries.get(name) ?? []), entry].sort((a, b) => a.priority - b.priority || a.seq - b.seq);
    this.entries.set(name, list);
    return () => {
      const current = this.entries.get(name);
      if (current)
        this.entries.set(
          name,
          current.filter((e) => e !== entry),
        );
    };
  }

  /** A snapshot, so listeners added or removed while running take effect on the next run. */
  private listeners(name: string): Entry[] {
    return this.entries.get(name) ?? [];
  }

  private run(name: string, body: () => void): void {
    this.runs.set(name, (this.runs.get(name) ?? 0) + 1);
    this.running.push(name);
    try {
      body();
    } finally {
      this.running.splice(this.running.lastIndexOf(name), 1);
    }
  }

  private async runAsync(name: string, body: () => Promise<void>): Promise<void> {
    this.runs.set(name, (this.runs.get(name) ?? 0) + 1);
    this.running.push(name);
    try {
      await body();
    } finally {
      this.running.splice(this.running.lastIndexOf(name), 1);
    }
  }

  private fail(name: string, error: unknown): void {
    this.logger.error({ err: error, hook: name }, `hook listener failed: ${name}`);
  }
}
