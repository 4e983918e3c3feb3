import { centsToDecimal, formatMoney, minorUnits } from '../../../core/money';
import type { Site } from '../../../host/contract';
import type { Order, Transaction, presentOrderItem } from '../../order-records/presenter';
import type { StoreSettings } from '../../settings/types';
import type { Subscription } from '../../subscription-records/types';
import { dashboardUrl, receiptUrl, siteDate, words } from './format';
import type { LicenseCode, SmartcodeValues } from './smartcodes';
import type { EmailData, EmailOrder, EmailSubscription, EmailTransaction } from './types';

export type EmailOrderItem = ReturnType<typeof presentOrderItem>;

/** An order's billing or shipping address, as the email needs it. */
export interface EmailAddress {
  name: string;
  email: string;
  city: string;
  state: string;
  country: string;
  full_address: string;
}

export interface EmailLicense {
  key: string;
  status: string;
  product_name: string;
  variant: string;
  limit: number | null;
  activation_count: number;
  expires_at: string | null;
}

/** What an email is made from, read by `buildEmailData` (or made up by `sampleEmailData`). */
export interface EmailRecords {
  order: Order | null;
  items: EmailOrderItem[];
  billing: EmailAddress | null;
  shipping: EmailAddress | null;
  transaction: Transaction | null;
  subscription: Subscription | null;
  customer: { first_name: string; last_name: string; email: string } | null;
  /** The customer's site account, when they have one. */
  user: { display_name: string; email: string } | null;
  licenses: EmailLicense[];
}

/** `Jane Q. Doe` → first `Jane`, last `Q. Doe`. */
function splitName(name: string): [string, string] {
  const trimmed = name.trim();
  const space = trimmed.indexOf(' ');
  return space < 0 ? [trimmed, ''] : [trimmed.slice(0, space), trimmed.slice(space + 1).trim()];
}

function itemTitle(item: EmailOrderItem): string {
  return item.title && item.post_title && item.title !== item.post_title ? `${item.post_title} – ${item.title}` : item.post_title || item.title;
}

/** The email's data from its records: views for the default bodies and every smartcode's value. */
export function composeEmailData(records: EmailRecords, site: Site, settings: StoreSettings): EmailData {
  const { order, transaction, subscription, customer, user, billing } = records;
  const currency = order?.currency ?? subscription?.currency ?? settings.currency;
  const money = (amount: number, code = currency) => formatMoney(amount, code, settings);
  const decimal = (amount: number, code = currency) => centsToDecimal(amount, minorUnits(code));
  const date = (stored: string | null) => siteDate(stored, site.timezone);

  const customerName = [customer?.first_name, customer?.last_name].filter(Boolean).join(' ') || billing?.name || user?.display_name || '';
  const customerEmail = customer?.email || billing?.email || user?.email || null;
  const [billingFirst, billingLast] = billing?.name ? splitName(billing.name) : [customer?.first_name ?? '', customer?.last_name ?? ''];

  const orderView: EmailOrder | null = order && {
    id: order.id,
    number: order.invoice_no || String(order.id),
    status: words(order.status),
    created_at: date(order.created_at),
    total: money(order.total_amount),
    payment_method: order.payment_method_title || words(order.payment_method),
    view_url: receiptUrl(site.url, order.uuid),
    admin_url: dashboardUrl(site.url, `orders/${order.id}`),
    lines: records.items.map((item) => ({ title: itemTitle(item), quantity: item.quantity, total: money(item.line_total) })),
    totals: [
      { label: 'Subtotal', amount: order.subtotal },
      ...(order.coupon_discount_total + order.manual_discount_total
        ? [{ label: 'Discount', amount: -(order.coupon_discount_total + order.manual_discount_total) }]
        : []),
      ...(order.shipping_total ? [{ label: 'Shipping', amount: order.shipping_total }] : []),
      ...(order.tax_total ? [{ label: 'Tax', amount: order.tax_total }] : []),
      { label: 'Total', amount: order.total_amount },
      ...(order.total_refund ? [{ label: 'Refunded', amount: -order.total_refund }] : []),
    ].map((total) => ({ label: total.label, amount: money(total.amount) })),
    billing_address: billing?.full_address ?? '',
    shipping_address: records.shipping?.full_address ?? '',
  };

  const txCurrency = transaction?.currency || currency;
  const refunded = transaction?.transaction_type === 'refund' ? transaction.total : (order?.total_refund ?? 0);
  const paymentMethod = transaction
    ? order && transaction.payment_method === order.payment_method && order.payment_method_title
      ? order.payment_method_title
      : words(transaction.payment_method)
    : '';
  const transactionView: EmailTransaction | null = transaction && {
    amount: money(transaction.total, txCurrency),
    refund_amount: money(refunded, txCurrency),
    payment_method: paymentMethod,
    card: transaction.card_last_4 ? `${words(transaction.card_brand) || 'Card'} •••• ${transaction.card_last_4}` : '',
    status: words(transaction.status),
  };

  const subscriptionView: EmailSubscription | null = subscription && {
    id: subscription.id,
    title: subscription.item_name,
    status: words(subscription.status),
    interval: words(subscription.billing_interval),
    recurring_amount: money(subscription.recurring_amount, subscription.currency || currency),
    next_billing_date: date(subscription.next_billing_date),
    trial_end_date: date(subscription.trial_ends_at),
    admin_url: dashboardUrl(site.url, `subscriptions/${subscription.id}`),
  };

  const codes: SmartcodeValues = {
    'order.id': order ? String(order.id) : '',
    'order.invoice_no': orderView?.number ?? '',
    'order.status': orderView?.status ?? '',
    'order.total_amount_formatted': orderView?.total ?? '',
    'order.customer_dashboard_link': orderView?.view_url ?? '',
    'order.created_at': orderView?.created_at ?? '',
    'site.admin_email': site.admin_email,
    'site.site_url': site.url,
    'site.site_title': site.title,
    'user.display_name': user?.display_name || customerName,
    'user.user_email': user?.email || customerEmail || '',
    'order.billing.first_name': billingFirst,
    'order.billing.last_name': billingLast,
    'order.billing.email': billing?.email || customer?.email || '',
    'order.billing.city': billing?.city ?? '',
    'order.billing.state': billing?.state ?? '',
    'order.billing.country': billing?.country ?? '',
    'transaction.total': transaction ? decimal(transaction.total, txCurrency) : '',
    'transaction.total_formatted': transactionView?.amount ?? '',
    'transaction.refund_amount': transaction ? decimal(refunded, txCurrency) : '',
    'transaction.refund_amount_formatted': transactionView?.refund_amount ?? '',
    'transaction.payment_method': paymentMethod,
    'transaction.card_last_4': transaction?.card_last_4 ?? '',
    'transaction.card_brand': transaction ? words(transaction.card_brand) : '',
    'transaction.status': transactionView?.status ?? '',
    'transaction.currency': transaction ? txCurrency : '',
    'settings.store_name': settings.store_name,
    'settings.store_logo': settings.store_logo,
    'settings.store_address': settings.store_address_1,
    'settings.store_address2': settings.store_address_2,
    'settings.store_country': settings.store_country,
    'settings.store_state': settings.store_state,
    'settings.store_city': settings.store_city,
    'settings.store_postcode': settings.store_postcode,
    'subscription.id': subscription ? String(subscription.id) : '',
    'subscription.item_name': subscriptionView?.title ?? '',
    'subscription.status': subscriptionView?.status ?? '',
    'subscription.billing_interval': subscriptionView?.interval ?? '',
    'subscription.recurring_amount_formatted': subscriptionView?.recurring_amount ?? '',
    'subscription.next_billing_date': subscriptionView?.next_billing_date ?? '',
    'subscription.trial_end_date': subscriptionView?.trial_end_date ?? '',
  };

  const licenses = records.licenses.map((license, index): Record<LicenseCode, string> => ({
    'license.sl': String(index + 1),
    'license.key': license.key,
    'license.status': words(license.status),
    'license.product_name': license.product_name,
    'license.variant': license.variant,
    'license.limit': license.limit === null ? 'Unlimited' : String(license.limit),
    'license.activation_count': String(license.activation_count),
    'license.expiration_date': license.expires_at ? date(license.expires_at) : 'Never',
  }));

  return {
    customer_email: customerEmail,
    customer_name: customerName,
    site: { title: site.title, url: site.url },
    store: { name: settings.store_name, logo: settings.store_logo },
    order: orderView,
    transaction: transactionView,
    subscription: subscriptionView,
    codes,
    licenses,
    records: { order, subscription, transaction },
  };
}
