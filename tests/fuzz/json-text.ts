/**
 * JSON as a hostile client writes it: tokens `JSON.stringify` cannot produce (`1e400`, `-0`, `9223372036854775808`,
 * broken text) and objects with an own `__proto__` key, as `JSON.parse` builds them on the server.
 */

/** A token or fragment written verbatim into the JSON text (and into query strings). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object whose keys are own data properties even when named `__proto__` (an object literal would set the prototype). */
export function objectWith(entries: Array<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** JSON text of a value that may hold `RawJson`; lone surrogates come out as `\udxxx` escapes, as `JSON.stringify` writes them. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${members.map(([key, v]) => `${JSON.stringify(key)}:${toJsonText(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The value with every `RawJson` replaced by its text: how it reads once it is a query-string or form value. */
export function withRawAsText(value: unknown): unknown {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return value.map(withRawAsText);
  if (value !== null && typeof value === 'object') return objectWith(Object.entries(value).map(([key, v]) => [key, withRawAsText(v)]));
  return value;
}

/** `depth` nested arrays around `inner`, as text (a value this deep would overflow a recursive serializer). */
export function nestedArrays(depth: number, inner = '1'): RawJson {
  return new RawJson(`${'['.repeat(depth)}${inner}${']'.repeat(depth)}`);
}

/** `depth` nested objects `{"a":{"a":…}}`, as text. */
export function nestedObjects(depth: number, inner = '1'): RawJson {
  return new RawJson(`${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`);
}
