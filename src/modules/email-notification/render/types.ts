import type { Order, Transaction } from '../../order-records/presenter';
import type { Subscription } from '../../subscription-records/types';
import type { LicenseCode, SmartcodeValues } from './smartcodes';

/** An order line as the default bodies show it. */
export interface EmailLine {
  title: string;
  quantity: number;
  /** Formatted in the order's currency. */
  total: string;
}

export interface EmailTotal {
  label: string;
  amount: string;
}

/** The order of an email, ready to print: amounts formatted, dates in the site's time zone, statuses in words. */
export interface EmailOrder {
  id: number;
  /** The invoice number, or the order id while the order has none (it gets one when paid). */
  number: string;
  status: string;
  created_at: string;
  total: string;
  payment_method: string;
  /** The customer's page of the order (its receipt). */
  view_url: string;
  /** The order in the store's dashboard. */
  admin_url: string;
  lines: EmailLine[];
  totals: EmailTotal[];
  billing_address: string;
  shipping_address: string;
}

/** The payment or refund an email is about. */
export interface EmailTransaction {
  amount: string;
  refund_amount: string;
  payment_method: string;
  /** `Visa •••• 4242`, or empty when the payment was not by card. */
  card: string;
  status: string;
}

export interface EmailSubscription {
  id: number;
  title: string;
  status: string;
  interval: string;
  recurring_amount: string;
  next_billing_date: string;
  trial_end_date: string;
  admin_url: string;
}

/**
 * Everything an email about one order or subscription shows: the views the default bodies print, every smartcode's
 * value, and the records behind them (for `store/email/smartcode` listeners). Built by `buildEmailData` (or
 * `sampleEmailData` for the preview); values are plain text, escaped where they are inserted into HTML.
 */
export interface EmailData {
  customer_email: string | null;
  customer_name: string;
  site: { title: string; url: string };
  store: { name: string; logo: string };
  order: EmailOrder | null;
  transaction: EmailTransaction | null;
  subscription: EmailSubscription | null;
  /** Every known smartcode (`order.id`, `settings.store_name` …) with its value; empty when the email has no such record. */
  codes: SmartcodeValues;
  /** One entry per license of the order, each holding the `license.*` codes: what a `{{#licenses}}…{{/licenses}}` block repeats. */
  licenses: Array<Record<LicenseCode, string>>;
  records: { order: Order | null; subscription: Subscription | null; transaction: Transaction | null };
}

/** Unsaved edits the preview renders instead of the saved settings. */
export interface EmailDraft {
  subject?: string;
  /** Sanitised HTML; empty: the default body. */
  email_body?: string;
}
