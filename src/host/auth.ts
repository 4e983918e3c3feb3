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

/**
 * Who is calling: an application password (HTTP Basic), or a cookie session whose REST nonce is valid.
 * A cookie session without a nonce acts as a guest (as WordPress does); with a bad nonce it is refused.
 */
export async function authenticate(req: Request, query: Record<string, unknown>, users: UserStore, nonces: NonceService): Promise<Authentication> {
  const header = req.headers.authorization;
  const nonce = nonceFrom(req, query);
  if (header?.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon > 0 ? await users.appPasswords.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1)) : null;
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
