import fc from 'fast-check';
import { nestedArrays, nestedObjects, objectWith, RawJson } from './json-text';

/**
 * Hostile inputs, independent of any route. Constants come first in each list: fast-check shrinks a
 * `constantFrom` towards its first entry, so the plainest value of a kind is what a failure shrinks to.
 */

/** Where a value goes: a body takes megabytes, a URL must stay under Node's 16 KB header limit. */
export type Room = 'body' | 'url';

const ONE_MB = 1 << 20;

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'] as const;

const FIXED_STRINGS: string[] = [
  '',
  ' ',
  '\t\n',
  '0',
  '-1',
  'null',
  'undefined',
  'true',
  'NaN',
  'Infinity',
  '1e400',
  '9'.repeat(400),
  '😀',
  '👩‍👩‍👧‍👦',
  'e\u0301'.repeat(50),
  'ﬁİß',
  '\ud800',
  '\udfff',
  'a\ud83db',
  '\udc00\ud800',
  '\u0000',
  'a\u0000b',
  '\u0001\u001f\u007f\u0085',
  '\r\n\r\nX-Injected: 1',
  '\u202etxt.exe',
  '\u200f\u200e\u2066',
  '\ufeff',
  '\uffff\ufffe',
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '" OR ""="',
  "1' UNION SELECT 1 --",
  '\\',
  '%',
  '_',
  '%_%',
  '`id`',
  '{"a":1}',
  '[',
  '}',
  '"',
  '\\u0000',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '${7*7}',
  '../../etc/passwd',
  'file:///etc/passwd',
  ...PROTOTYPE_KEYS,
];

const LONG_STRINGS: Record<Room, string[]> = {
  body: ['a'.repeat(256), 'é'.repeat(256), 'a'.repeat(65_536), '😀'.repeat(ONE_MB / 4), 'a'.repeat(ONE_MB), '\u0000'.repeat(1000)],
  url: ['a'.repeat(256), 'é'.repeat(256), '😀'.repeat(300), 'a'.repeat(3000)],
};

/** One UTF-16 unit or code point a parser, a database or a log line may choke on. */
const hostileChar = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\u0008', '\u001b', '\u007f', '\u202e', '\u200f', '\u2028', '\ufeff') },
  { weight: 2, arbitrary: fc.constantFrom("'", '"', '`', '\\', '%', '_', ';', '{', '}', '[', ']', ':', ',', '&', '=', '#', '?', '/') },
);

export function hostileString(room: Room): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...FIXED_STRINGS) },
    { weight: 3, arbitrary: fc.string({ unit: hostileChar, maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constantFrom(...LONG_STRINGS[room]) },
  );
}

/** Numbers JSON can carry, and tokens it carries but a JS number cannot hold exactly. */
export const HOSTILE_NUMBERS: unknown[] = [
  0,
  -1,
  new RawJson('-0'),
  0.5,
  1.5,
  -1.5,
  0.1,
  12.345,
  1e-7,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  2 ** 53 + 2,
  1e21,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  new RawJson('9223372036854775807'),
  new RawJson('9223372036854775808'),
  new RawJson('-9223372036854775809'),
  new RawJson('1e400'),
  new RawJson('-1e400'),
  new RawJson('1e-400'),
  new RawJson('100000000000000000000000000000000'),
  new RawJson('12.3456789012345678901234567890'),
];

/** Text a client may send where a number or an amount of money is expected. */
export const NUMERIC_STRINGS = [
  '12.34',
  '12,34',
  '1,000.00',
  '$5',
  '0x10',
  ' 5 ',
  '5e2',
  '-0.00',
  '.5',
  '5.',
  '١٢',
  '１２',
  '9223372036854775808',
  '1e400',
  '-0',
];

/** Arrays and objects where a scalar is expected, prototype-polluting objects, and nesting beyond any sane depth. */
export const HOSTILE_SHAPES: unknown[] = [
  null,
  true,
  false,
  [],
  {},
  [1],
  [null],
  ['1', '2'],
  [[]],
  { a: 1 },
  { '0': 1, length: 1 },
  objectWith([['__proto__', { admin: true }]]),
  objectWith([['constructor', { prototype: { polluted: true } }]]),
  objectWith([['__proto__', null]]),
  nestedArrays(31),
  nestedObjects(32),
  nestedArrays(33),
  nestedObjects(64),
];

/** Nesting only a body has room for. */
const DEEP_SHAPES = [nestedArrays(1000), nestedObjects(10_000)];

export function hostileValue(room: Room): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: hostileString(room) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) },
    { weight: 1, arbitrary: fc.constantFrom(...NUMERIC_STRINGS) },
    { weight: 2, arbitrary: fc.constantFrom(...(room === 'body' ? [...HOSTILE_SHAPES, ...DEEP_SHAPES] : HOSTILE_SHAPES)) },
  );
}

/** Path segments where an id belongs, already as they appear in the URL. */
export const BAD_IDS = [
  '0',
  '-1',
  '1e400',
  '9'.repeat(400),
  'abc',
  '%00',
  '..',
  '.',
  '%2e%2e',
  '1.5',
  '01',
  '%201',
  '1%20',
  '9223372036854775808',
  '4294967296',
  '0x1f',
  '1e3',
  'NaN',
  'Infinity',
  'null',
  '%E2%80%AE1',
  '%F0%9F%98%80',
  '%',
  '%zz',
  '%ED%A0%80',
  '__proto__',
  'constructor',
  '%5B%5D',
  "1'",
  '1;1',
];

/** Raw fragments appended to a query string: qs edge cases, prototype keys, broken escapes, duplicate keys. */
export const RAW_QUERY_FRAGMENTS = [
  '%',
  'a=%zz',
  '%00=1',
  '__proto__[admin]=1',
  'constructor[prototype][polluted]=1',
  'page[]=1&page[]=2',
  'per_page=1e400',
  'per_page=-1',
  'page=9223372036854775808',
  'a[b][c][d][e][f][g][h]=1',
  'with[5001]=x',
  'search=%ED%A0%80',
  'sort_by=__proto__',
  'sort_by=constructor',
  'order_statuses[]=__proto__',
  'payment_statuses[__proto__]=1',
  '_wpnonce=garbage',
  'page=1&page=2',
  `include_ids[]=${'9'.repeat(400)}`,
  '=&&=&',
];

/** Basic credentials broken so that no caller is authenticated by them. */
export const BREAKING_BASIC_TWISTS = [
  'bad-base64',
  'empty-basic',
  'base64-garbage-appended',
  'password-garbage-appended',
  'no-colon',
  'empty-login',
  'unknown-user',
  'nul-in-login',
  'utf8-login',
  'bearer',
  'long-header',
] as const;
/** Cookie sessions broken: a wrong, empty or missing nonce, or a garbage cookie. */
export const BREAKING_COOKIE_TWISTS = ['nonce-garbage', 'nonce-empty', 'nonce-missing', 'nonce-in-query-garbage', 'nonce-long', 'cookie-garbage'] as const;
/** Ways to twist the credentials of a request (see `requests.ts` for how each applies to each caller); `lowercase-scheme` stays valid (HTTP schemes are case-insensitive). */
export const AUTH_TWISTS = [...BREAKING_BASIC_TWISTS, 'lowercase-scheme', ...BREAKING_COOKIE_TWISTS] as const;
export type AuthTwist = (typeof AUTH_TWISTS)[number];

/** Ways to send a body: broken JSON, other content types, unknown encodings, wrong charsets, too large. */
export const BODY_TWISTS = [
  'json',
  'invalid-json',
  'form',
  'text-plain',
  'no-content-type',
  'xml',
  'multipart',
  'encoding-x-foo',
  'gzip-label',
  'deflate-label',
  'charset-utf16',
  'invalid-utf8',
  'bom',
  'empty',
  'too-large',
  'deep-array',
  'deep-object',
  'top-level-scalar',
] as const;
export type BodyTwist = (typeof BODY_TWISTS)[number];

export const INVALID_JSON = [
  '{',
  '{"a":}',
  "{'a':1}",
  '{"a":1,}',
  '[1,]',
  'undefined',
  'NaN',
  '{"a":NaN}',
  '{"a":1}garbage',
  '{"a":"\\x00"}',
  '{"a":"\u0000"}',
  '{"a":01}',
  '\u0000',
  '{"__proto__":',
];

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
