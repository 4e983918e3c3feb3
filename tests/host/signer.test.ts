import { HmacSigner } from '../../src/host/signer';
import { startTestApp } from '../support/app';

/** `host.signer`: MACs under the host secret, one derived key per purpose. */
describe('HmacSigner', () => {
  const signer = new HmacSigner('host-secret');

  it('verifies its own MAC of a message for the same purpose', () => {
    const mac = signer.sign('subscription-switch', 'payload');
    expect(mac).toMatch(/^[\w-]{43}$/);
    expect(signer.verify('subscription-switch', 'payload', mac)).toBe(true);
  });

  it('refuses another message, another purpose, another secret, and a MAC of the wrong length or type', () => {
    const mac = signer.sign('subscription-switch', 'payload');
    expect(signer.verify('subscription-switch', 'payload2', mac)).toBe(false);
    expect(signer.verify('subscription-reactivation', 'payload', mac)).toBe(false);
    expect(new HmacSigner('other-secret').verify('subscription-switch', 'payload', mac)).toBe(false);
    expect(signer.verify('subscription-switch', 'payload', mac.slice(1))).toBe(false);
    expect(signer.verify('subscription-switch', 'payload', undefined as unknown as string)).toBe(false);
  });

  it('is the host service plugins get (the same secret gives the same MACs in every process)', async () => {
    const app = await startTestApp({ plugin: false });
    try {
      expect(app.host.signer.sign('p', 'm')).toBe(new HmacSigner('test-secret').sign('p', 'm'));
    } finally {
      await app.close();
    }
  });
});
