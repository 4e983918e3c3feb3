import type { Host } from '../../host/contract';
import { formatMoney } from '../../core/money';
import { presentOrder, presentOrderAddress, presentOrderItem, type OrderRow } from '../order-records/presenter';
import { getStoreSettings } from '../settings/store-settings';

/** Order hashes are `crypto.randomUUID()`s: anything else (including an administrator's own `uuid`) has no receipt. */
const ORDER_HASH = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export interface ReceiptLine {
  title: string;
  quantity: number;
  total: string;
}

export interface ReceiptAddress {
  type: string;
  /** Name, company, street, city and country on one line, in the country's own order. */
  full_address: string;
}

/** What the receipt page shows, every amount already formatted in the order's currency. */
export type Receipt = {
  store_name: string;
  heading: string;
  date: string;
  lines: ReceiptLine[];
  totals: Array<{ label: string; amount: string }>;
  payment_status: string;
  payment_method: string;
  addresses: ReceiptAddress[];
};

const words = (value: string) => (value ? value.charAt(0).toUpperCase() + value.slice(1).replace(/[_-]+/g, ' ') : '');

/** `2026-11-21 10:00:00` (UTC, as stored) as the site shows dates: `November 21, 2026` in its time zone. */
function dateOf(stored: string, timeZone: string): string {
  const date = new Date(`${stored.replace(' ', 'T')}Z`);
  if (Number.isNaN(date.getTime())) return stored;
  return new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone }).format(date);
}

/** The receipt of the order whose uuid is `hash`, or null when the hash is malformed or no order has it. */
export async function receiptOf(host: Host, hash: unknown): Promise<Receipt | null> {
  if (typeof hash !== 'string' || !ORDER_HASH.test(hash)) return null;
  const row = (await host.db('store_orders').where({ uuid: hash }).first()) as OrderRow | undefined;
  if (!row) return null;
  const order = presentOrder(row);
  const [settings, itemRows, addressRows] = await Promise.all([
    getStoreSettings(host),
    host.db('store_order_items').where({ order_id: order.id }).orderBy(['cart_index', 'id']),
    host.db('store_order_addresses').where({ order_id: order.id }).orderBy('type'),
  ]);
  const money = (amount: number) => formatMoney(amount, order.currency, settings);
  const items = (itemRows as Array<Record<string, unknown>>).map(presentOrderItem);
  const addresses = await Promise.all((addressRows as Array<Record<string, unknown>>).map(presentOrderAddress));
  const discounts = order.coupon_discount_total + order.manual_discount_total;
  const totals = [
    { label: 'Subtotal', amount: order.subtotal },
    ...(discounts ? [{ label: 'Discount', amount: -discounts }] : []),
    { label: 'Shipping', amount: order.shipping_total },
    { label: 'Tax', amount: order.tax_total },
    { label: 'Total', amount: order.total_amount },
    { label: 'Paid', amount: order.total_paid },
    ...(order.total_refund ? [{ label: 'Refunded', amount: -order.total_refund }] : []),
  ];
  return {
    store_name: settings.store_name,
    heading: order.invoice_no ? `Invoice ${order.invoice_no}` : `Order #${order.id}`,
    date: dateOf(order.created_at, host.site.timezone),
    lines: items.map((item) => ({
      title: item.title && item.title !== item.post_title ? `${item.post_title} – ${item.title}` : item.post_title || item.title,
      quantity: item.quantity,
      total: money(item.line_total),
    })),
    totals: totals.map((t) => ({ label: t.label, amount: money(t.amount) })),
    payment_status: words(order.payment_status),
    payment_method: order.payment_method_title || words(order.payment_method),
    addresses: addresses.map((a) => ({
      type: a.type === 'shipping' ? 'Shipping address' : 'Billing address',
      full_address: a.formatted_address.full_address,
    })),
  };
}
