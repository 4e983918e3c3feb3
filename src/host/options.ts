import type { Knex } from 'knex';
import type { Clock, OptionMap, Options } from './contract';
import { dialectOf } from './database';

interface Cached {
  value: unknown;
  loadedAt: number;
}

/**
 * Typed key/value settings in the `options` table. Values are JSON. Reads are cached per process for
 * `ttlMs`, so a change made by another process is seen within that time; writes here are seen at once.
 */
export class OptionStore implements Options {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly ttlMs = 5000,
  ) {}

  get<K extends keyof OptionMap>(name: K): Promise<OptionMap[K] | undefined>;
  get<K extends keyof OptionMap>(name: K, fallback: OptionMap[K], via?: Knex.Transaction): Promise<OptionMap[K]>;
  async get<K extends keyof OptionMap>(name: K, fallback?: OptionMap[K], via?: Knex.Transaction): Promise<OptionMap[K] | undefined> {
    const now = this.clock.now().getTime();
    const cached = this.cache.get(name);
    let value: unknown;
    if (cached && now - cached.loadedAt < this.ttlMs) {
      value = cached.value;
    } else {
      const row = (await (via ?? this.db)('options').where({ name }).first('value')) as { value: string | null } | undefined;
      value = row?.value == null ? undefined : JSON.parse(row.value);
      this.cache.set(name, { value, loadedAt: now });
    }
    return value === undefined ? fallback : (value as OptionMap[K]);
  }

  async set<K extends keyof OptionMap>(name: K, value: OptionMap[K], via?: Knex.Transaction): Promise<void> {
    await (via ?? this.db)('options')
      .insert({ name, value: JSON.stringify(value) })
      .onConflict('name')
      .merge(['value']);
    if (!via) {
      this.cache.set(name, { value, loadedAt: this.clock.now().getTime() });
      return;
    }
    // Until the transaction ends the value may yet roll back, and a read meanwhile may cache the old one.
    this.cache.delete(name);
    const forget = () => void this.cache.delete(name);
    via.executionPromise.then(forget, forget);
  }

  async lock<K extends keyof OptionMap>(name: K, fallback: OptionMap[K], trx: Knex.Transaction): Promise<OptionMap[K]> {
    const query = trx('options').where({ name }).first('value');
    // SQLite has one writer at a time: the transaction itself is the lock.
    const row = (await (dialectOf(trx) === 'mysql' ? query.forUpdate() : query)) as { value: string | null } | undefined;
    return row?.value == null ? fallback : (JSON.parse(row.value) as OptionMap[K]);
  }

  async delete(name: keyof OptionMap): Promise<void> {
    await this.db('options').where({ name }).delete();
    this.cache.delete(name);
  }
}
