import { BREAKING_BASIC_TWISTS, BREAKING_COOKIE_TWISTS, type AuthTwist } from './hostile-values';
import type { Caller, FuzzCase } from './requests';

/** What a caller sends to authenticate; the cookie caller's session is renewed between batches. */
export interface Credentials {
  admin: { login: string; password: string };
  shopper: { login: string; password: string };
  cookie: { cookie: string; nonce: string };
}

function basic(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/**
 * Credentials headers for the caller, broken by each twist in turn (a later Authorization twist replaces an earlier one).
 * Basic twists on cookie or anonymous callers use an unknown user.
 */
export function authHeaders(caller: Caller, twists: AuthTwist[], creds: Credentials, query: string[]): Record<string, string> {
  const app = caller === 'admin' ? creds.admin : caller === 'shopper-app' ? creds.shopper : { login: 'nobody', password: 'abcd efgh ijkl mnop qrst uvwx' };
  const valid = `${app.login}:${app.password}`;
  const headers: Record<string, string> = {};
  if (caller === 'admin' || caller === 'shopper-app') headers.Authorization = `Basic ${basic(valid)}`;
  if (caller === 'shopper-cookie') {
    headers.Cookie = creds.cookie.cookie;
    headers['X-WP-Nonce'] = creds.cookie.nonce;
  }
  for (const twist of twists) applyTwist(headers, twist, app, query);
  return headers;
}

function applyTwist(headers: Record<string, string>, twist: AuthTwist, app: { login: string; password: string }, query: string[]): void {
  const valid = `${app.login}:${app.password}`;
  switch (twist) {
    case 'bad-base64':
      headers.Authorization = 'Basic !!!%%%***';
      break;
    case 'empty-basic':
      headers.Authorization = 'Basic ';
      break;
    case 'base64-garbage-appended':
      headers.Authorization = `Basic ${basic(valid)}garbage`;
      break;
    case 'password-garbage-appended':
      headers.Authorization = `Basic ${basic(`${valid}garbage`)}`;
      break;
    case 'no-colon':
      headers.Authorization = `Basic ${basic(app.login)}`;
      break;
    case 'empty-login':
      headers.Authorization = `Basic ${basic(`:${app.password}`)}`;
      break;
    case 'unknown-user':
      headers.Authorization = `Basic ${basic(`nobody-${app.login}:${app.password}`)}`;
      break;
    case 'nul-in-login':
      headers.Authorization = `Basic ${basic(`${app.login}\u0000:${app.password}`)}`;
      break;
    case 'utf8-login':
      headers.Authorization = `Basic ${basic(`ädmin😀\ud800:${app.password}`)}`;
      break;
    case 'bearer':
      headers.Authorization = `Bearer ${basic(valid)}`;
      break;
    case 'lowercase-scheme':
      headers.Authorization = `basic ${basic(valid)}`;
      break;
    case 'long-header':
      headers.Authorization = `Basic ${'A'.repeat(4000)}`;
      break;
    case 'nonce-garbage':
      headers['X-WP-Nonce'] = 'garbage';
      break;
    case 'nonce-empty':
      headers['X-WP-Nonce'] = '';
      break;
    case 'nonce-missing':
      delete headers['X-WP-Nonce'];
      break;
    case 'nonce-in-query-garbage':
      delete headers['X-WP-Nonce'];
      query.push('_wpnonce=garbage');
      break;
    case 'nonce-long':
      headers['X-WP-Nonce'] = 'a'.repeat(4000);
      break;
    case 'cookie-garbage':
      headers.Cookie = 'store_session=s%3Agarbage.signature; other=%zz';
      break;
  }
}

/** Twists after which a request carries no valid credentials, whatever the caller (the twisted header wins). */
const BREAKING_BASIC: readonly AuthTwist[] = BREAKING_BASIC_TWISTS;
/** Twists that break a cookie caller's credentials (a Basic caller does not send its nonce or cookie for anything). */
const BREAKING_COOKIE: readonly AuthTwist[] = BREAKING_COOKIE_TWISTS;

/**
 * Whether the request carries valid credentials: `valid`, `none` (anonymous, or broken by a twist), or `unclear`
 * (`basic` in lower case: HTTP says schemes are case-insensitive, so accepting it is no bypass). `how` names the caller
 * and the twist that decided.
 */
export function credentialsOf(fuzzCase: FuzzCase): { state: 'valid' | 'none' | 'unclear'; how: string } {
  const twists = fuzzCase.mutations.flatMap((m) => (m.kind === 'auth' ? [m.twist] : []));
  const lastBasic = twists.filter((t) => t === 'lowercase-scheme' || BREAKING_BASIC.includes(t)).at(-1);
  const cookieTwist = twists.find((t) => BREAKING_COOKIE.includes(t));
  const how = (twist?: AuthTwist) => [fuzzCase.caller, ...(twist ? [twist] : [])].join(', ');
  if (lastBasic === 'lowercase-scheme') return { state: 'unclear', how: how(lastBasic) };
  if (lastBasic) return { state: 'none', how: how(lastBasic) };
  if (fuzzCase.caller === 'anonymous') return { state: 'none', how: how() };
  if (fuzzCase.caller === 'shopper-cookie' && cookieTwist) return { state: 'none', how: how(cookieTwist) };
  return { state: 'valid', how: how() };
}
