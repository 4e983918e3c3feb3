import crypto from 'node:crypto';
import type { Clock, NonceIdentity, Nonces } from './contract';

const TICK_SECONDS = 43200;

/**
 * WordPress REST nonces: an HMAC over tick|action|user|session token, cut to 10 hex characters,
 * valid for the current and the previous 12-hour tick.
 */
export class NonceService implements Nonces {
  constructor(
    private readonly secret: string,
    private readonly clock: Clock,
  ) {}

  create(action: string, identity: NonceIdentity): string {
    return this.compute(this.tick(), action, identity);
  }

  verify(nonce: string, action: string, identity: NonceIdentity): 1 | 2 | false {
    if (typeof nonce !== 'string' || nonce.length !== 10) return false;
    const tick = this.tick();
    if (this.equals(nonce, this.compute(tick, action, identity))) return 1;
    if (this.equals(nonce, this.compute(tick - 1, action, identity))) return 2;
    return false;
  }

  private tick(): number {
    return Math.ceil(this.clock.now().getTime() / 1000 / TICK_SECONDS);
  }

  private compute(tick: number, action: string, identity: NonceIdentity): string {
    const digest = crypto.createHmac('sha256', this.secret).update(`${tick}|${action}|${identity.userId}|${identity.sessionToken}`).digest('hex');
    return digest.slice(-12, -2);
  }

  private equals(a: string, b: string): boolean {
    const left = Buffer.from(a);
    const right = Buffer.from(b);
    return left.length === right.length && crypto.timingSafeEqual(left, right);
  }
}
