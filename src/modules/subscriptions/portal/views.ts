import { decimalWithCode } from '../../../core/money';
import type { OrderAddress } from '../../order-records/presenter';
import type { BillingInterval, Subscription } from '../types';

/** The store's interval names as a unit and a count (`half_yearly` = 6 months), as gateways and calendars use them. */
const UNITS: Record<BillingInterval, { interval: 'day' | 'week' | 'month' | 'year'; interval_count: number }> = {
  daily: { interval: 'day', interval_count: 1 },
  weekly: { interval: 'week', interval_count: 1 },
  monthly: { interval: 'month', interval_count: 1 },
  quarterly: { interval: 'month', interval_count: 3 },
  half_yearly: { interval: 'month', interval_count: 6 },
  yearly: { interval: 'year', interval_count: 1 },
};

const WORDS: Record<BillingInterval, string> = {
  daily: 'day',
  weekly: 'week',
  monthly: 'month',
  quarterly: 'quarter',
  half_yearly: 'half year',
  yearly: 'year',
};

/** Config entries the customer may see: the ones the portal writes for them (the rest is internal: gateway extras, admin notes). */
const PUBLIC_CONFIG = ['payment_method_id', 'payment_method_type', 'cancel_at_period_end', 'reactivated_at', 'payment_method_switched_at'] as const;

/** What the gateway charges each period, in minor units of `currency`: the recurring amount (the gateways bill exactly that). */
export const chargePerPeriod = (subscription: Subscription) => subscription.recurring_amount;

function billingInfo(subscription: Subscription) {
  return { ...(UNITS[subscription.billing_interval] ?? UNITS.monthly), amount: chargePerPeriod(subscription), currency: subscription.currency };
}

/** `10.00 USD / month`, and how many installments when the plan has a fixed number. */
function subtitle(subscription: Subscription): string {
  const price = `${decimalWithCode(chargePerPeriod(subscription), subscription.currency)} / ${WORDS[subscription.billing_interval] ?? subscription.billing_interval}`;
  return subscription.bill_times > 0 ? `${price}, ${subscription.bill_count} of ${subscription.bill_times} payments made` : price;
}

function publicConfig(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(PUBLIC_CONFIG.filter((key) => Object.hasOwn(config, key)).map((key) => [key, config[key]]));
}

/** A row of the portal list: what a "my subscriptions" table shows, with the uuid the other portal paths take. */
export function presentPortalSummary(subscription: Subscription, orderUuid: string | null) {
  return {
    uuid: subscription.uuid,
    status: subscription.status,
    title: subscription.item_name,
    subtitle: subtitle(subscription),
    item_name: subscription.item_name,
    billing_info: billingInfo(subscription),
    recurring_amount: subscription.recurring_amount,
    currency: subscription.currency,
    next_billing_date: subscription.next_billing_date,
    bill_times: subscription.bill_times,
    bill_count: subscription.bill_count,
    current_payment_method: subscription.current_payment_method,
    order: orderUuid === null ? null : { uuid: orderUuid },
    created_at: subscription.created_at,
  };
}
export type PortalSummary = ReturnType<typeof presentPortalSummary>;

/** What the detail view needs beyond the subscription: read by `portalDetail`. */
export interface DetailExtras {
  orderUuid: string | null;
  paymentMethodTitle: string;
  billingAddresses: OrderAddress[];
  switchable: string[];
  canUpdatePaymentMethod: boolean;
  reactivateUrl: string | null;
}

/** The portal detail view: every field the spec lists, in its order, then `currency` and the subscription's dates. */
export function presentPortalDetail(subscription: Subscription, extras: DetailExtras) {
  const config = subscription.config;
  const overridden = config.overridden_status;
  return {
    uuid: subscription.uuid,
    status: subscription.status,
    overridden_status: typeof overridden === 'string' && overridden !== '' ? overridden : null,
    vendor_subscription_id: subscription.vendor_subscription_id,
    next_billing_date: subscription.next_billing_date,
    billing_info: billingInfo(subscription),
    current_payment_method: subscription.current_payment_method,
    payment_method: extras.paymentMethodTitle,
    payment_info: {
      method: subscription.current_payment_method,
      title: extras.paymentMethodTitle,
      payment_method_type: typeof config.payment_method_type === 'string' ? config.payment_method_type : null,
      payment_method_id: typeof config.payment_method_id === 'string' ? config.payment_method_id : null,
    },
    bill_times: subscription.bill_times,
    bill_count: subscription.bill_count,
    variation_id: subscription.variation_id,
    product_id: subscription.product_id,
    config: publicConfig(config),
    reactivate_url: extras.reactivateUrl,
    title: subscription.item_name,
    subtitle: subtitle(subscription),
    can_upgrade: false,
    can_switch_payment_method: extras.switchable.length > 0,
    switchable_payment_methods: extras.switchable,
    can_update_payment_method: extras.canUpdatePaymentMethod,
    order: extras.orderUuid === null ? null : { uuid: extras.orderUuid },
    billing_addresses: extras.billingAddresses,
    recurring_amount: subscription.recurring_amount,
    currency: subscription.currency,
    trial_ends_at: subscription.trial_ends_at,
    expire_at: subscription.expire_at,
    canceled_at: subscription.canceled_at,
    created_at: subscription.created_at,
  };
}
