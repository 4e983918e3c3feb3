import type { SmartcodeGroup } from '../types';

/** The smartcodes by group, each with the label the editor shows: the spec's groups and `subscription`. */
const GROUPS = {
  order: {
    title: 'Order',
    codes: {
      'order.id': 'Order ID',
      'order.invoice_no': 'Invoice number (the order ID until it has one)',
      'order.status': 'Order status',
      'order.total_amount_formatted': 'Order total (formatted)',
      'order.customer_dashboard_link': "Link to the customer's order page",
      'order.created_at': 'Order date',
    },
  },
  general: {
    title: 'General',
    codes: {
      'site.admin_email': 'Site admin email',
      'site.site_url': 'Site URL',
      'site.site_title': 'Site title',
      'user.display_name': "Customer's display name",
      'user.user_email': "Customer's email",
    },
  },
  customer: {
    title: 'Customer',
    codes: {
      'order.billing.first_name': 'Billing first name',
      'order.billing.last_name': 'Billing last name',
      'order.billing.email': 'Billing email',
      'order.billing.city': 'Billing city',
      'order.billing.state': 'Billing state (code)',
      'order.billing.country': 'Billing country (code)',
    },
  },
  transaction: {
    title: 'Transaction',
    codes: {
      'transaction.total': 'Transaction amount',
      'transaction.total_formatted': 'Transaction amount (formatted)',
      'transaction.refund_amount': 'Refunded amount',
      'transaction.refund_amount_formatted': 'Refunded amount (formatted)',
      'transaction.payment_method': 'Payment method',
      'transaction.card_last_4': 'Card last 4 digits',
      'transaction.card_brand': 'Card brand',
      'transaction.status': 'Transaction status',
      'transaction.currency': 'Currency',
    },
  },
  settings: {
    title: 'Store settings',
    codes: {
      'settings.store_name': 'Store name',
      'settings.store_logo': 'Store logo URL',
      'settings.store_address': 'Store address',
      'settings.store_address2': 'Store address line 2',
      'settings.store_country': 'Store country (code)',
      'settings.store_state': 'Store state (code)',
      'settings.store_city': 'Store city',
      'settings.store_postcode': 'Store postcode',
    },
  },
  license: {
    title: 'Licenses (between {{#licenses}} and {{/licenses}}, repeated per license)',
    codes: {
      'license.sl': 'Serial number in the list',
      'license.key': 'License key',
      'license.status': 'License status',
      'license.product_name': 'Product name',
      'license.variant': 'Variant',
      'license.limit': 'Activation limit',
      'license.activation_count': 'Activations',
      'license.expiration_date': 'Expiration date',
    },
  },
  subscription: {
    title: 'Subscription',
    codes: {
      'subscription.id': 'Subscription ID',
      'subscription.item_name': 'Subscribed item',
      'subscription.status': 'Subscription status',
      'subscription.billing_interval': 'Billing interval',
      'subscription.recurring_amount_formatted': 'Recurring amount (formatted)',
      'subscription.next_billing_date': 'Next billing date',
      'subscription.trial_end_date': 'Trial end date',
    },
  },
} as const satisfies Record<SmartcodeGroup, { title: string; codes: Record<string, string> }>;

type Groups = typeof GROUPS;
/** A smartcode's name, as written between the braces: `order.id`. */
export type Smartcode = { [G in keyof Groups]: keyof Groups[G]['codes'] }[keyof Groups];
export type LicenseCode = keyof Groups['license']['codes'];
/** Every code outside the license loop, with its value: what `EmailData.codes` holds. */
export type SmartcodeValues = Record<Exclude<Smartcode, LicenseCode>, string>;

export const LICENSE_CODES = Object.keys(GROUPS.license.codes) as LicenseCode[];

/** The loop of the license codes: `{{#licenses}}<tr><td>{{license.key}}</td></tr>{{/licenses}}`. */
export const LICENSE_LOOP = { open: '{{#licenses}}', close: '{{/licenses}}' } as const;

export interface SmartcodeGroupView {
  title: string;
  key: SmartcodeGroup;
  /** `{{code}}` → label, ready to insert. */
  shortcodes: Record<string, string>;
}

/** The smartcode groups as the API shows them (`GET /email-notification/{notification}`, `get-short-codes`). */
export const SMARTCODE_GROUPS: Record<SmartcodeGroup, SmartcodeGroupView> = Object.fromEntries(
  (Object.entries(GROUPS) as Array<[SmartcodeGroup, { title: string; codes: Record<string, string> }]>).map(([key, group]) => [
    key,
    {
      title: group.title,
      key,
      shortcodes: {
        ...(key === 'license' ? { [LICENSE_LOOP.open]: 'Start of the license loop' } : {}),
        ...Object.fromEntries(Object.entries(group.codes).map(([code, label]) => [`{{${code}}}`, label])),
        ...(key === 'license' ? { [LICENSE_LOOP.close]: 'End of the license loop' } : {}),
      },
    },
  ]),
) as Record<SmartcodeGroup, SmartcodeGroupView>;
