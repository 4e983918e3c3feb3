/** Printable ASCII without `"` and `\`: such a string is its own JSON text between two quotes, one byte a character. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function stringBytes(text: string): number {
  return PLAIN.test(text) ? text.length + 2 : Buffer.byteLength(JSON.stringify(text));
}

/** The size of `"key":` by key: records repeat the same few hundred keys millions of times (bounded: keys are data too). */
const memberKeys = new Map<string, number>();
const MAX_KEYS = 10_000;

function keyBytes(key: string): number {
  let bytes = memberKeys.get(key);
  if (bytes === undefined) {
    bytes = stringBytes(key) + 1;
    if (memberKeys.size >= MAX_KEYS) memberKeys.clear();
    memberKeys.set(key, bytes);
  }
  return bytes;
}

/**
 * The UTF-8 size of `JSON.stringify(value)` for the plain data of export records (objects, arrays, strings, numbers,
 * booleans, null; no `toJSON`), without building the text: the budget check measures every record, the host then
 * serialises the answer, and this walk costs a third of a `JSON.stringify`.
 */
export function jsonBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return stringBytes(value);
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        if (!value.length) return 2;
        let bytes = 1 + value.length;
        for (const item of value) bytes += item === undefined ? 4 : jsonBytes(item);
        return bytes;
      }
      const members = value as Record<string, unknown>;
      let bytes = 1;
      let count = 0;
      for (const key in members) {
        const member = members[key];
        if (member === undefined) continue;
        bytes += keyBytes(key) + jsonBytes(member);
        count++;
      }
      return bytes + Math.max(count, 1);
    }
    default:
      return 0;
  }
}

/** `jsonBytes` of records holding exactly `keys`, in that order (CSV records): the keys are measured once. */
export function flatRecordBytes(keys: readonly string[]): (record: Record<string, unknown>) => number {
  const overhead = 1 + keys.length + keys.reduce((bytes, key) => bytes + stringBytes(key) + 1, 0);
  return (record) => {
    let bytes = overhead;
    for (const key of keys) bytes += jsonBytes(record[key]);
    return bytes;
  };
}
