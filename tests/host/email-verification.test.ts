import type { ParsedMail } from 'mailparser';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink';

const SITE = 'http://store.test';
const HOUR = 60 * 60 * 1000;

/** The verification link of a mail, as a path on the test app. */
function linkIn(mail: ParsedMail): string {
  const match = /http:\/\/store\.test(\/verify-email\/\?token=\S+)/.exec(mail.text ?? '');
  if (!match) throw new Error(`no verification link in: ${mail.text}`);
  return match[1];
}

const tokenOf = (path: string) => decodeURIComponent(path.split('token=')[1]);
const hiddenToken = (html: string) => /name="token" value="([^"]+)"/.exec(html)?.[1];

describe('email verification', () => {
  let app: TestApp;
  let sink: SmtpSink;
  const verified: number[] = [];

  beforeAll(async () => {
    sink = await startSmtpSink();
    app = await startTestApp({ config: { smtpUrl: sink.url } });
    app.host.hooks.addAction('host/user/email_verified', (user) => {
      verified.push(user.id);
    });
  });
  afterAll(async () => {
    await app.close();
    await sink.close();
  });

  const stored = async (id: number) =>
    (await app.host.db('users').where({ id }).first('email', 'email_verified_at')) as { email: string; email_verified_at: string | null };

  /** An unverified shopper who asks for a link; answers the link's path. */
  async function requestLink(user: TestUser): Promise<string> {
    const res = await app.as(user).post(`${BASE}/user/verify-email`);
    expect(res.status).toBe(200);
    const mails = sink.to(user.user.email);
    return linkIn(mails[mails.length - 1]);
  }

  describe('POST /user/verify-email', () => {
    it('mails the caller a link to the verification page', async () => {
      const ann = await app.createUser('ann', ['customer'], { emailVerified: false });
      const res = await app.as(ann).post(`${BASE}/user/verify-email`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'We sent a link to ann@example.com to confirm it. It is valid for 48 hours.', verified: false });
      const [mail] = sink.to('ann@example.com');
      expect(mail.subject).toBe('Confirm your email address for My Store');
      expect(mail.text).toContain('The account "ann" at My Store gave this email address.');
      expect(mail.text).toContain(`${SITE}/verify-email/?token=`);
      expect(mail.text).toContain('If you did not ask for this, ignore this email: nothing changes.');
      expect((await stored(ann.user.id)).email_verified_at).toBeNull();
    });

    it('a verified caller gets no mail', async () => {
      const bea = await app.createUser('bea');
      const res = await app.as(bea).post(`${BASE}/user/verify-email`);
      expect(res.body).toEqual({ message: 'Your email address is already verified.', verified: true });
      expect(sink.to('bea@example.com')).toEqual([]);
    });

    it('needs a logged-in caller (401), and allows 3 links an hour (429 on the 4th)', async () => {
      expect((await app.http.post(`${BASE}/user/verify-email`)).status).toBe(401);
      const cid = await app.createUser('cid', ['customer'], { emailVerified: false });
      for (let i = 0; i < 3; i++) expect((await app.as(cid).post(`${BASE}/user/verify-email`)).status).toBe(200);
      const fourth = await app.as(cid).post(`${BASE}/user/verify-email`);
      expect(fourth.status).toBe(429);
      expect(fourth.body).toEqual({ message: 'Too many requests. Please try again later.' });
      expect(sink.to('cid@example.com')).toHaveLength(3);
    });
  });

  describe('users.requestEmailVerification (what checkout calls for a new account)', () => {
    it('mails an unverified user; a verified user gets nothing', async () => {
      const dee = await app.createUser('dee', ['customer'], { emailVerified: false });
      await app.host.users.requestEmailVerification(dee.user.id);
      expect(sink.to('dee@example.com')).toHaveLength(1);
      const eve = await app.createUser('eve');
      await app.host.users.requestEmailVerification(eve.user.id);
      expect(sink.to('eve@example.com')).toHaveLength(0);
    });
  });

  describe('GET and POST /verify-email/', () => {
    it('the link shows a confirmation form and changes nothing; confirming verifies the email once', async () => {
      const fay = await app.createUser('fay', ['customer'], { emailVerified: false });
      const link = await requestLink(fay);

      const page = await app.http.get(link);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.text).toContain('<h1>Confirm your email address</h1>');
      expect(page.text).toContain('Confirm that <strong>fay@example.com</strong> belongs to the account <strong>fay</strong>');
      expect(page.text).toContain('<form method="post" action="/verify-email/">');
      expect(hiddenToken(page.text)).toBe(tokenOf(link));
      expect((await stored(fay.user.id)).email_verified_at).toBeNull();
      expect(verified).not.toContain(fay.user.id);

      app.clock.advance(HOUR);
      const done = await app.http
        .post('/verify-email/')
        .type('form')
        .send({ token: hiddenToken(page.text) });
      expect(done.status).toBe(200);
      expect(done.text).toContain('<h1>Email address verified</h1>');
      expect((await stored(fay.user.id)).email_verified_at).toBe(app.clock.now().toISOString().slice(0, 19).replace('T', ' '));
      expect((await app.host.users.findById(fay.user.id))?.email_verified_at).not.toBeNull();
      expect(verified.filter((id) => id === fay.user.id)).toHaveLength(1);

      // Following the link again shows the result; nothing is verified twice.
      expect((await app.http.get(link)).text).toContain('<h1>Email address verified</h1>');
      expect(
        (
          await app.http
            .post('/verify-email/')
            .type('form')
            .send({ token: tokenOf(link) })
        ).status,
      ).toBe(200);
      expect(verified.filter((id) => id === fay.user.id)).toHaveLength(1);
    });

    it('a link is valid for 48 hours: after that it is a 410 error page and verifies nothing', async () => {
      const gus = await app.createUser('gus', ['customer'], { emailVerified: false });
      const link = await requestLink(gus);
      app.clock.advance(48 * HOUR - 1000);
      expect((await app.http.get(link)).status).toBe(200);
      app.clock.advance(1000);
      const late = await app.http.get(link);
      expect(late.status).toBe(410);
      expect(late.text).toContain('This verification link has expired. Ask for a new one from your account.');
      const post = await app.http
        .post('/verify-email/')
        .type('form')
        .send({ token: tokenOf(link) });
      expect(post.status).toBe(410);
      expect((await stored(gus.user.id)).email_verified_at).toBeNull();
    });

    it.each([
      ['a changed signature', (token: string) => token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')],
      ['a later expiry', (token: string) => token.replace(/\.(\d+)\./, (_m, exp: string) => `.${Number(exp) + 3600}.`)],
      ["another user's id", (token: string) => token.replace(/^\d+/, (id) => String(Number(id) + 1))],
      ['garbage', () => 'not-a-token'],
      ['nothing', () => ''],
    ])('a token with %s is a 400 error page and verifies nothing', async (name, tamper) => {
      const user = await app.createUser(`tamper-${name.replace(/\W+/g, '-')}`, ['customer'], { emailVerified: false });
      // The next user exists, so a token moved to their id names a real user.
      await app.createUser(`next-${name.replace(/\W+/g, '-')}`, ['customer'], { emailVerified: false });
      const token = tamper(tokenOf(await requestLink(user)));
      const before = verified.length;
      const res = await app.http.get(`/verify-email/?token=${encodeURIComponent(token)}`);
      expect(res.status).toBe(400);
      expect(res.text).toContain('This verification link is not valid. Ask for a new one from your account.');
      expect((await app.http.post('/verify-email/').type('form').send({ token })).status).toBe(400);
      expect((await stored(user.user.id)).email_verified_at).toBeNull();
      expect((await stored(user.user.id + 1)).email_verified_at).toBeNull();
      expect(verified.length).toBe(before);
    });

    it('a token sent as a list, or no token at all, is a 400 error page', async () => {
      expect((await app.http.get('/verify-email/?token[]=1.2.3')).status).toBe(400);
      expect((await app.http.get('/verify-email/')).status).toBe(400);
    });
  });

  describe('changing the email', () => {
    it('voids the links sent to the old address and clears the verification', async () => {
      const hal = await app.createUser('hal', ['customer'], { emailVerified: false });
      const link = await requestLink(hal);
      await app.host.users.update(hal.user.id, { email: 'hal.new@example.com' });
      const res = await app.http.get(link);
      expect(res.status).toBe(400);
      expect((await stored(hal.user.id)).email_verified_at).toBeNull();

      const fresh = await requestLink({ ...hal, user: { ...hal.user, email: 'hal.new@example.com' } });
      expect(
        (
          await app.http
            .post('/verify-email/')
            .type('form')
            .send({ token: tokenOf(fresh) })
        ).status,
      ).toBe(200);
      expect((await stored(hal.user.id)).email_verified_at).not.toBeNull();

      // The same address in other letters is no change; a new one is unverified again.
      await app.host.users.update(hal.user.id, { email: 'HAL.New@Example.com', first_name: 'Hal' });
      expect((await stored(hal.user.id)).email_verified_at).not.toBeNull();
      const changed = await app.host.users.update(hal.user.id, { email: 'hal.other@example.com' });
      expect(changed.email_verified_at).toBeNull();
      expect(await stored(hal.user.id)).toEqual({ email: 'hal.other@example.com', email_verified_at: null });
    });
  });

  describe('who starts verified', () => {
    it('users created with email_verified (an administrator, the CLI) are verified; others are not', async () => {
      const vouched = await app.host.users.create({ login: 'ivy', email: 'ivy@example.com', email_verified: true });
      expect(vouched.email_verified_at).toBe(app.clock.now().toISOString().slice(0, 19).replace('T', ' '));
      const shopper = await app.host.users.create({ login: 'jon', email: 'jon@example.com' });
      expect(shopper.email_verified_at).toBeNull();
    });

    it('markEmailVerified: an administrator vouches later; the hook fires once', async () => {
      const kim = await app.createUser('kim', ['customer'], { emailVerified: false });
      const user = await app.host.users.markEmailVerified(kim.user.id);
      expect(user.email_verified_at).not.toBeNull();
      await app.host.users.markEmailVerified(kim.user.id);
      expect(verified.filter((id) => id === kim.user.id)).toHaveLength(1);
    });
  });
});
