import type { Request } from 'express';
import type { HostUser, RestAuth } from './contract';
import type { NonceService } from './nonce';
import type { UserStore } from './users';

export const REST_NONCE_ACTION = 'wp_rest';

export type Authentication = { ok: true; user: HostUser | null; auth: RestAuth } | { ok: false; status: number; code: string; message: string };

function nonceFrom(req: Request, query: Record<string, unknown>): string | null {
  const header = req.headers['x-wp-nonce'];
  const value = Array.isArray(header) ? header[0] : (header ?? query._wpnonce);
  return typeof value === 'string' && value !== '' ? value : null;
}

const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * `login:password` of a Basic credential, decoded strictly: canonical base64 (which `Buffer.from` would not check: it
 * skips what it cannot decode, so `<valid>!!!` decoded as `<valid>`) of UTF-8 text with a colon after a non-empty login.
 */
function basicCredentials(encoded: string): { login: string; password: string } | null {
  if (!CANONICAL_BASE64.test(encoded)) return null;
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.toString('base64') !== encoded) return null;
  const decoded = bytes.toString('utf8');
  if (!Buffer.from(decoded, 'utf8').equals(bytes)) return null;
  const colon = decoded.indexOf(':');
  return colon > 0 ? { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) } : null;
}

/**
 * Who is calling: an application password (HTTP Basic), or a cookie session whose REST nonce is valid.
 * A cookie session without a nonce acts as a guest (as WordPress does); with a bad nonce it is refused. A Basic
 * header that does not decode to `login:password` is refused with 401; a wrong password makes a guest.
 */
export async function authenticate(req: Request, query: Record<string, unknown>, users: UserStore, nonces: NonceService): Promise<Authentication> {
  const header = req.headers.authorization;
  const nonce = nonceFrom(req, query);
  if (header?.startsWith('Basic ')) {
    const credentials = basicCredentials(header.slice(6));
    if (!credentials)
      return {
        ok: false,
        status: 401,
        code: 'rest_invalid_authorization',
        message: 'The Authorization header is not valid HTTP Basic credentials (base64 of login:password).',
      };
    const user = await users.appPasswords.authenticate(credentials.login, credentials.password);
    return { ok: true, user, auth: { method: user ? 'app-password' : null, sessionToken: null, sessionUserId: null, nonce, nonceValid: false } };
  }

  const session = req.session as (typeof req.session & { userId?: number }) | undefined;
  const sessionToken = session ? req.sessionID : null;
  const userId = session?.userId;
  if (!userId || !sessionToken) {
    const nonceValid = !!(nonce && sessionToken && nonces.verify(nonce, REST_NONCE_ACTION, { userId: 0, sessionToken }));
    return { ok: true, user: null, auth: { method: null, sessionToken, sessionUserId: null, nonce, nonceValid } };
  }
  if (!nonce) return { ok: true, user: null, auth: { method: null, sessionToken, sessionUserId: userId, nonce: null, nonceValid: false } };
  if (!nonces.verify(nonce, REST_NONCE_ACTION, { userId, sessionToken })) {
    return { ok: false, status: 403, code: 'rest_cookie_invalid_nonce', message: 'Cookie check failed' };
  }
  const user = await users.findById(userId);
  return { ok: true, user, auth: { method: user ? 'cookie' : null, sessionToken, sessionUserId: userId, nonce, nonceValid: !!user } };
}
