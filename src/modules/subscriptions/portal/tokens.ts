import crypto from 'node:crypto';
import type { Ctx } from '../../../core/context';
import { invalid } from '../../../core/errors';

/** What a token is for: each purpose is signed with its own key, so one kind of token never passes as another. */
export type TokenPurpose = 'subscription-switch' | 'subscription-reactivation';

/** What every token carries: the subscription and user it was issued to, its expiry (epoch seconds) and a unique id. */
interface Claims {
  sub: number;
  user: number;
  exp: number;
  jti: string;
}

/**
 * Issues a token `<payload>.<mac>`: the base64url JSON of the claims and its HMAC under the host secret
 * (`host.signer`). It names one subscription and user and expires after `ttlSeconds` on the store's clock.
 */
export function issueToken(ctx: Ctx, purpose: TokenPurpose, subscriptionId: number, ttlSeconds: number) {
  const claims: Claims = {
    sub: subscriptionId,
    user: ctx.user?.id ?? 0,
    exp: Math.floor(ctx.clock.now().getTime() / 1000) + ttlSeconds,
    jti: crypto.randomBytes(12).toString('base64url'),
  };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return { token: `${payload}.${ctx.host.signer.sign(purpose, payload)}`, jti: claims.jti, expiresAt: new Date(claims.exp * 1000) };
}

/**
 * The claims of a token issued for this purpose, subscription and caller and not yet expired; otherwise a 422 on
 * `field` (a tampered, foreign, reused-elsewhere or expired token are one answer: nothing to probe).
 */
export function readToken(ctx: Ctx, purpose: TokenPurpose, token: string, subscriptionId: number, field: string): Claims {
  const refused = invalid(field, 'invalid', 'The token is invalid or has expired.');
  const [payload, mac, ...rest] = token.split('.');
  if (!payload || !mac || rest.length || !ctx.host.signer.verify(purpose, payload, mac)) throw refused;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw refused;
  }
  const c = (claims ?? {}) as Partial<Claims>;
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  if (c.sub !== subscriptionId || c.user !== ctx.user?.id || typeof c.exp !== 'number' || c.exp <= now || typeof c.jti !== 'string') throw refused;
  return c as Claims;
}
