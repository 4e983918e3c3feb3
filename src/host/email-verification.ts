import crypto from 'node:crypto';
import { PageError, type Clock, type HostUser, type Mailer, type Pages, type Site, type Views } from './contract';
import type { UserStore, VerificationMailer } from './users';

const TTL_SECONDS = 48 * 60 * 60;
export const VERIFY_EMAIL_PATH = '/verify-email/';

/** `<user id>.<expiry, unix seconds>.<HMAC>`; the HMAC also covers the email, so a new address voids older links. */
const TOKEN = /^(\d{1,10})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export type TokenCheck = { ok: true; user: HostUser } | { ok: false; reason: 'invalid' | 'expired' };

/** Signed, expiring email-verification links: made and mailed here, checked by the `/verify-email/` page. */
export class EmailVerification implements VerificationMailer {
  constructor(
    private readonly users: UserStore,
    private readonly mailer: Mailer,
    private readonly site: Site,
    private readonly secret: string,
    private readonly clock: Clock,
  ) {}

  tokenFor(user: HostUser): string {
    const expires = Math.floor(this.clock.now().getTime() / 1000) + TTL_SECONDS;
    return `${user.id}.${expires}.${this.mac(user.id, user.email, expires)}`;
  }

  linkFor(user: HostUser): string {
    return `${this.site.url}${VERIFY_EMAIL_PATH}?token=${encodeURIComponent(this.tokenFor(user))}`;
  }

  async send(user: HostUser): Promise<void> {
    await this.mailer.send({
      to: user.email,
      subject: `Confirm your email address for ${this.site.title}`,
      text: [
        `Hello ${user.display_name || user.login},`,
        '',
        `The account "${user.login}" at ${this.site.title} gave this email address. To confirm that it is yours, open this link within 48 hours and press "Confirm":`,
        '',
        this.linkFor(user),
        '',
        'Confirming gives that account access to the orders placed with this address.',
        'If you did not ask for this, ignore this email: nothing changes.',
      ].join('\n'),
    });
  }

  /** The user a token was made for, if its signature holds for their current email and it has not expired. */
  async check(token: unknown): Promise<TokenCheck> {
    const match = typeof token === 'string' ? TOKEN.exec(token) : null;
    if (!match) return { ok: false, reason: 'invalid' };
    const [, id, expires, mac] = match;
    const user = await this.users.findById(Number(id));
    if (!user) return { ok: false, reason: 'invalid' };
    const expected = Buffer.from(this.mac(user.id, user.email, Number(expires)));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
    if (Number(expires) * 1000 <= this.clock.now().getTime()) return { ok: false, reason: 'expired' };
    return { ok: true, user };
  }

  private mac(userId: number, email: string, expires: number): string {
    return crypto.createHmac('sha256', this.secret).update(`email-verification|${userId}|${email}|${expires}`).digest('base64url');
  }
}

const refusal = (reason: 'invalid' | 'expired') =>
  reason === 'expired'
    ? new PageError(410, 'This verification link has expired. Ask for a new one from your account.')
    : new PageError(400, 'This verification link is not valid. Ask for a new one from your account.');

/**
 * `GET /verify-email/?token=…` shows what the link confirms and a button; the POST of that form verifies. A GET never
 * changes anything, so mail scanners that open links cannot verify an address on their own.
 */
export function registerVerificationPage(pages: Pages, verification: EmailVerification, users: UserStore, views: Views, site: Site): void {
  const render = (state: 'confirm' | 'done', user: HostUser, token: string) =>
    views.render('pages/verify-email', { state, site: site.title, login: user.login, email: user.email, token, action: VERIFY_EMAIL_PATH });
  pages.register({
    path: VERIFY_EMAIL_PATH,
    methods: ['GET', 'POST'],
    async handler(request) {
      const token = request.method === 'POST' ? request.form.token : request.query.token;
      const checked = await verification.check(token);
      if (!checked.ok) throw refusal(checked.reason);
      if (request.method === 'GET' && !checked.user.email_verified_at) return { html: render('confirm', checked.user, token as string) };
      const user = checked.user.email_verified_at ? checked.user : await users.markEmailVerified(checked.user.id);
      return { html: render('done', user, '') };
    },
  });
}
