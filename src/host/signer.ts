import crypto from 'node:crypto';
import type { Signer } from './contract';

/**
 * MACs under the host secret for tokens a plugin hands out (confirmation links and the like). Each purpose gets its own
 * key derived from the secret (HKDF-SHA256), so a MAC made for one purpose never verifies for another.
 */
export class HmacSigner implements Signer {
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly secret: string) {}

  sign(purpose: string, message: string): string {
    return crypto.createHmac('sha256', this.key(purpose)).update(message).digest('base64url');
  }

  verify(purpose: string, message: string, mac: string): boolean {
    const expected = Buffer.from(this.sign(purpose, message));
    const given = Buffer.from(typeof mac === 'string' ? mac : '');
    return expected.length === given.length && crypto.timingSafeEqual(expected, given);
  }

  private key(purpose: string): Buffer {
    let key = this.keys.get(purpose);
    if (!key) {
      key = Buffer.from(crypto.hkdfSync('sha256', this.secret, 'host-signer', purpose, 32));
      this.keys.set(purpose, key);
    }
    return key;
  }
}
