import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { HostMailer } from '../../src/host/mailer';
import { OptionStore } from '../../src/host/options';
import { startTestApp, type TestApp } from '../support/app';

declare module '../../src/host/contract' {
  interface OptionMap {
    test_settings: { enabled: boolean; limits: number[] };
  }
}

const site = { url: 'http://store.test', title: 'Test "Store"', admin_email: 'owner@store.test', timezone: 'UTC' };

describe('host services', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  describe('options', () => {
    it('stores typed JSON values, returns a fallback when unset, deletes', async () => {
      const { options } = app.host;
      expect(await options.get('test_settings')).toBeUndefined();
      expect(await options.get('test_settings', { enabled: false, limits: [] })).toEqual({ enabled: false, limits: [] });
      await options.set('test_settings', { enabled: true, limits: [1, 2] });
      expect(await options.get('test_settings')).toEqual({ enabled: true, limits: [1, 2] });
      await options.set('test_settings', { enabled: false, limits: [3] });
      expect(await options.get('test_settings')).toEqual({ enabled: false, limits: [3] });
      await options.delete('test_settings');
      expect(await options.get('test_settings')).toBeUndefined();
    });

    it('a value set in a transaction commits or rolls back with it, and this process reads what was committed', async () => {
      const { options } = app.host;
      await options.set('site_title', 'Before');
      await app.host.db.transaction(async (trx) => {
        await options.set('site_title', 'Committed', trx);
        expect(await options.get('site_title', '', trx)).toBe('Committed');
      });
      expect(await options.get('site_title')).toBe('Committed');
      await expect(
        app.host.db.transaction(async (trx) => {
          await options.set('site_title', 'Rolled back', trx);
          expect(await options.get('site_title', '', trx)).toBe('Rolled back');
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await options.get('site_title')).toBe('Committed');
      expect((await app.host.db('options').where({ name: 'site_title' }).first('value')).value).toBe('"Committed"');
    });

    it('another process sees a change once its cache entry is older than the TTL', async () => {
      const other = new OptionStore(app.host.db, app.clock, 5000);
      await app.host.options.set('site_title', 'First');
      expect(await other.get('site_title')).toBe('First');
      await app.host.options.set('site_title', 'Second');
      expect(await other.get('site_title')).toBe('First');
      app.clock.advance(5001);
      expect(await other.get('site_title')).toBe('Second');
    });
  });

  describe('users and roles', () => {
    it('stores emails lower-cased and refuses duplicates of login or email', async () => {
      const user = await app.host.users.create({ login: 'Mixed', email: 'Mixed.Case@Example.COM', password: 'pw' });
      expect(user.email).toBe('mixed.case@example.com');
      expect(user.nicename).toBe('mixed');
      expect(user.registered).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      await expect(app.host.users.create({ login: 'Mixed', email: 'x@example.com' })).rejects.toThrow('Sorry, that username already exists!');
      await expect(app.host.users.create({ login: 'other', email: 'MIXED.case@example.com' })).rejects.toThrow('Sorry, that email address is already used!');
      expect((await app.host.users.findByEmail('MIXED.CASE@example.com'))?.id).toBe(user.id);
    });

    it('hashes login passwords with scrypt and verifies them', async () => {
      await app.host.users.create({ login: 'hashy', email: 'hashy@example.com', password: 'correct horse' });
      const row = await app.database.db('users').where({ login: 'hashy' }).first();
      expect(row.password_hash).toMatch(/^\$scrypt\$N=\d+,r=\d+,p=\d+\$/);
      expect(await app.host.users.verifyPassword('hashy', 'correct horse')).toMatchObject({ login: 'hashy' });
      expect(await app.host.users.verifyPassword('hashy', 'wrong')).toBeNull();
    });

    it('administrators hold every capability; store roles hold theirs; role assignment lives in usermeta', async () => {
      const admin = await app.host.users.create({ login: 'root', email: 'root@example.com', roles: ['administrator'] });
      expect(app.host.users.can(admin, 'anything/at_all')).toBe(true);
      const clerk = await app.host.users.create({ login: 'clerk', email: 'clerk@example.com', roles: ['customer'] });
      expect(app.host.users.can(clerk, 'orders/view')).toBe(false);
      await app.host.users.assignRole(clerk.id, 'order_manager');
      const reloaded = (await app.host.users.findById(clerk.id))!;
      expect(reloaded.roles).toEqual(['customer', 'order_manager']);
      expect(app.host.users.can(reloaded, 'orders/view')).toBe(true);
      expect(app.host.users.can(reloaded, 'store/sensitive')).toBe(false);
      expect(await app.host.users.getMeta(clerk.id, 'roles')).toEqual(['customer', 'order_manager']);
      await app.host.users.removeRole(clerk.id, 'order_manager');
      expect(app.host.users.can((await app.host.users.findById(clerk.id))!, 'orders/view')).toBe(false);
      expect(app.host.users.can(null, 'read')).toBe(false);
    });

    it('built-in roles cannot be unregistered', () => {
      expect(app.host.users.roles.unregister('administrator')).toBe(false);
      expect(app.host.users.roles.unregister('shop_manager')).toBe(false);
      expect(app.host.users.roles.list().map((r) => r.key)).toEqual(
        expect.arrayContaining(['administrator', 'customer', 'shop_manager', 'product_manager', 'order_manager', 'customer_service']),
      );
    });
  });

  describe('mailer', () => {
    it('writes .eml files under the data directory by default', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-mail-'));
      const mailer = new HostMailer(site, null, dir);
      const { messageId } = await mailer.send({ to: 'buyer@example.com', subject: 'Your receipt', html: '<p>Thanks</p>' });
      expect(messageId).toBeTruthy();
      const files = fs.readdirSync(dir);
      expect(files).toHaveLength(1);
      const parsed = await simpleParser(fs.readFileSync(path.join(dir, files[0])));
      expect(parsed.subject).toBe('Your receipt');
      expect(parsed.from?.value[0]).toMatchObject({ name: 'Test "Store"', address: 'owner@store.test' });
      expect(parsed.html).toContain('<p>Thanks</p>');
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('sends through SMTP when configured, over a pool of at most five connections closed with the mailer', async () => {
      const received: ParsedMail[] = [];
      let connections = 0;
      const server = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        onConnect(_session, done) {
          connections++;
          done();
        },
        onData(stream, _session, done) {
          simpleParser(stream).then((mail) => {
            received.push(mail);
            done();
          }, done);
        },
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.server.address() as { port: number }).port;
      try {
        const mailer = new HostMailer(site, `smtp://127.0.0.1:${port}?ignoreTLS=true`, '/nonexistent');
        await mailer.send({ to: ['a@example.com', 'b@example.com'], subject: 'Hello', text: 'Plain body', replyTo: 'help@store.test' });
        expect(received).toHaveLength(1);
        expect(received[0].subject).toBe('Hello');
        expect(received[0].text?.trim()).toBe('Plain body');
        expect(received[0].replyTo?.text).toBe('help@store.test');

        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            mailer.send({ to: `c${i}@example.com`, subject: `Batch ${i}`, text: 'x', from: { name: 'Shop, "Main"', address: 'shop@store.test' } }),
          ),
        );
        expect(received).toHaveLength(21);
        expect(received[20].from?.value[0]).toEqual({ name: 'Shop, "Main"', address: 'shop@store.test' });
        expect(connections).toBeGreaterThan(1);
        expect(connections).toBeLessThanOrEqual(5);
        mailer.close();
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });
});
