/**
 * The entry of `table` for `key`, among the table's own entries only. Client text looked up in a plain object would
 * otherwise find what every object inherits (`__proto__`, `constructor`, `toString`, `hasOwnProperty`); every lookup
 * of client text in a table of allowed values goes through here (or a `Map`).
 */
export function ownEntry<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
