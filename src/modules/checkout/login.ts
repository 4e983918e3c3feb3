import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/context';
import { fail } from '../../core/errors';
import type { RateLimitRule } from '../../core/ratelimit';
import { Reply } from '../../core/routes';
import { linkCustomerByEmail } from '../customers/owner';
import type { LoginBody } from './schemas';

/** Failed attempts per IP and login name; a success clears the counter. */
function failedLogins(login: string): RateLimitRule {
  return { name: 'login-failures', points: 20, durationSeconds: 15 * 60, key: (ctx) => `${ctx.ip}|${login.toLowerCase()}` };
}

/** `POST /user/login`: checks the REST nonce, then the credentials, and starts a cookie session. */
export async function login(ctx: Ctx, input: Static<typeof LoginBody>): Promise<Reply> {
  if (!ctx.auth.nonceValid) throw fail('invalid_nonce');
  const userLogin = input.user_login?.trim() ?? '';
  if (!userLogin) throw fail('missing_login');
  if (!input.password) throw fail('missing_password');

  const limit = failedLogins(userLogin);
  await ctx.limits.check(ctx, limit);
  const user = await ctx.host.users.verifyPassword(userLogin, input.password);
  if (!user) {
    await ctx.limits.consume(ctx, limit);
    throw fail('login_failed');
  }
  await ctx.limits.reset(ctx, limit);
  await linkCustomerByEmail(ctx.db, { user_id: user.id, email: user.email });
  const nonce = await ctx.session.login(user, input.remember_me === 'on');
  ctx.hooks.doAction('store/user/logged_in', user);
  const redirect_url = ctx.hooks.applyFilters('store/user/login_redirect', `${ctx.host.site.url}/account/`, { user });
  return new Reply({ success: true, data: { message: 'Login successful', redirect_url } }, 200, { 'X-WP-Nonce': nonce });
}
