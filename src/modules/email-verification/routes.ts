import type { Ctx } from '../../core/context';
import { CustomerFrontendPolicy } from '../../core/policies';
import type { RateLimitRule } from '../../core/ratelimit';
import { route, type RouteDef } from '../../core/routes';

/** Each link is a mail sent on the caller's behalf: a few an hour per user. */
const LINKS_PER_HOUR: RateLimitRule = { name: 'verify-email', points: 3, durationSeconds: 3600 };

/** Mails the caller a new verification link, unless their email is verified already. */
async function requestLink(ctx: Ctx): Promise<{ message: string; verified: boolean }> {
  const user = ctx.user!;
  if (user.email_verified_at) return { message: 'Your email address is already verified.', verified: true };
  await ctx.host.users.requestEmailVerification(user.id);
  return { message: `We sent a link to ${user.email} to confirm it. It is valid for 48 hours.`, verified: false };
}

export const emailVerificationRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/user/verify-email',
    policy: CustomerFrontendPolicy,
    permission: 'authenticated',
    envelope: 'message',
    rateLimit: LINKS_PER_HOUR,
    handler: (ctx) => requestLink(ctx),
  }),
];
