import { systemCtx, type Ctx } from '../../../core/context';
import { AppError } from '../../../core/errors';
import { formatMoney } from '../../../core/money';
import type { RateLimits } from '../../../core/ratelimit';
import { PageError, type Host, type PageRequest, type PageResponse } from '../../../host/contract';
import { getStoreSettings } from '../../settings/store-settings';
import { presentSubscription, type SubscriptionRow } from '../presenter';
import type { Subscription } from '../types';
import { EARLY_PAYMENT, EARLY_PAYMENT_PATH, earlyPaymentEnabled, installmentRefusal, tokenValid } from './early-payment';
import { startEarlyPayment } from './early-payment-order';
import { gatewayOf, titleOf } from './lookup';

const INVALID_LINK = 'This payment link is not valid or has expired. Ask the store for a new one.';

/** The subscription the link names, when its token was signed for it and has not expired; otherwise the 404 page. */
async function linkedSubscription(host: Host, hash: unknown, token: unknown): Promise<Subscription> {
  if (typeof hash !== 'string' || !tokenValid(host, hash, token, host.clock.now())) throw new PageError(404, INVALID_LINK);
  const row = (await host.db('store_subscriptions').where({ uuid: hash }).first()) as SubscriptionRow | undefined;
  if (!row) throw new PageError(404, INVALID_LINK);
  return presentSubscription(row);
}

async function render(ctx: Ctx, subscription: Subscription, token: string): Promise<PageResponse> {
  const { host } = ctx;
  const settings = await getStoreSettings(host);
  const amount = formatMoney(subscription.recurring_amount + subscription.recurring_tax_total, subscription.currency, settings);
  const installment = subscription.bill_count + 1;
  return {
    html: host.views.render('pages/early-payment', {
      store_name: settings.store_name,
      heading: `Pay installment ${installment} of ${subscription.bill_times} early`,
      item_name: subscription.item_name,
      amount,
      next_billing_date: subscription.next_billing_date?.slice(0, 10) ?? '',
      installment,
      installments: subscription.bill_times,
      method: titleOf(gatewayOf(ctx, subscription), subscription),
      action: EARLY_PAYMENT_PATH,
      subscription_hash: subscription.uuid,
      token,
    }),
    headers: { 'X-Robots-Tag': 'noindex, nofollow' },
  };
}

/**
 * `/early-payment/?subscription_hash=<uuid>&token=<signed>` (the `payment_url` of `early-payment-link`): GET shows the
 * next installment; POST (the page's own form, carrying the signed token: pages take no nonce) starts paying it with
 * the subscription's gateway and sends the shopper there (303), or to the order's receipt when the method is paid
 * offline. The site switch and the installment conditions are checked again on every request. A gateway that takes
 * payments only on the checkout page (Stripe's on-site mode answers a client secret) cannot be used here: the page says
 * so and the order stays pending for another attempt.
 */
export function registerEarlyPaymentPage(host: Host, limits: RateLimits): void {
  host.pages.register({
    path: EARLY_PAYMENT_PATH,
    methods: ['GET', 'POST'],
    async handler(request: PageRequest): Promise<PageResponse> {
      const fields = request.method === 'POST' ? request.form : request.query;
      const subscription = await linkedSubscription(host, fields.subscription_hash, fields.token);
      if (!(await earlyPaymentEnabled(host))) throw new PageError(403, EARLY_PAYMENT.disabled);
      const refusal = installmentRefusal(subscription);
      if (refusal) throw new PageError(409, refusal.message);
      const token = String(fields.token);
      const ctx = systemCtx(host, limits, request.user);
      if (request.method === 'GET') return render(ctx, subscription, token);

      const site = host.site.url.replace(/\/+$/, '');
      const back = `${site}${EARLY_PAYMENT_PATH}?subscription_hash=${encodeURIComponent(subscription.uuid)}&token=${encodeURIComponent(token)}`;
      let started;
      try {
        started = await startEarlyPayment(ctx, subscription.id, back);
      } catch (error) {
        if (error instanceof AppError) throw new PageError(error.status, error.message);
        throw error;
      }
      const { start, order_uuid } = started;
      if (start.kind === 'redirect') return { status: 303, redirect: start.redirect_url };
      if (start.kind === 'offline') return { status: 303, redirect: `${site}/receipt/?order_hash=${encodeURIComponent(order_uuid)}` };
      throw new PageError(
        409,
        `${titleOf(gatewayOf(ctx, subscription), subscription)} takes payments on the checkout page only. Please contact the store to pay this installment.`,
      );
    },
  });
}
