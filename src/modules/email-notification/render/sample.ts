import type { Ctx } from '../../../core/context';
import { toTimestamp } from '../../../core/time';
import { presentOrder, presentOrderItem, presentTransaction } from '../../order-records/presenter';
import { DEFAULT_STORE_SETTINGS } from '../../settings/store-settings';
import type { StoreSettings } from '../../settings/types';
import { presentSubscription } from '../../subscription-records/presenter';
import { composeEmailData } from './compose';
import type { EmailData } from './types';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Made-up data for the preview: a paid two-item order of Jane Doe with a card payment, a monthly subscription and one
 * license (so that a license loop shows what it repeats), in the store's currency and settings.
 */
export function sampleEmailData(ctx: Ctx, settings: StoreSettings = DEFAULT_STORE_SETTINGS): EmailData {
  const now = ctx.clock.now();
  const at = (days: number) => toTimestamp(new Date(now.getTime() + days * DAY_MS));
  const { currency } = settings;
  const order = presentOrder({
    id: 1001,
    uuid: '00000000-0000-4000-8000-000000001001',
    parent_id: null,
    customer_id: 1,
    receipt_number: 1001,
    invoice_no: `${settings.invoice_prefix}1001`,
    status: 'processing',
    payment_status: 'paid',
    shipping_status: 'unshipped',
    payment_method: 'stripe',
    payment_method_title: 'Card',
    type: 'payment',
    currency,
    subtotal: 7497,
    shipping_total: 500,
    tax_total: 600,
    total_amount: 8597,
    total_paid: 8597,
    created_at: at(-1),
    updated_at: at(-1),
  });
  const item = (id: number, post_title: string, title: string, quantity: number, unit_price: number) =>
    presentOrderItem({ id, order_id: order.id, post_title, title, quantity, unit_price, subtotal: unit_price * quantity, line_total: unit_price * quantity });
  const address = { name: 'Jane Doe', email: 'jane@example.com', city: 'Springfield', state: 'IL', country: 'US' };
  return composeEmailData(
    {
      order,
      items: [item(1, 'Coffee Beans', '1 kg', 2, 2499), item(2, 'Pour-over Kettle', 'Steel', 1, 2499)],
      billing: { ...address, full_address: 'Jane Doe, 12 Main St, SPRINGFIELD, IL 62701, United States of America' },
      shipping: { ...address, full_address: 'Jane Doe, 12 Main St, SPRINGFIELD, IL 62701, United States of America' },
      transaction: presentTransaction({
        id: 501,
        order_id: order.id,
        transaction_type: 'charge',
        payment_method: 'stripe',
        card_last_4: '4242',
        card_brand: 'visa',
        status: 'succeeded',
        currency,
        total: 8597,
        created_at: at(-1),
        updated_at: at(-1),
      }),
      subscription: presentSubscription({
        id: 301,
        status: 'active',
        item_name: 'Coffee Club – Monthly',
        parent_order_id: order.id,
        customer_id: 1,
        billing_interval: 'monthly',
        currency,
        recurring_amount: 1999,
        next_billing_date: at(30),
        trial_ends_at: at(7),
        created_at: at(-1),
        updated_at: at(-1),
      }),
      customer: { first_name: 'Jane', last_name: 'Doe', email: 'jane@example.com' },
      user: { display_name: 'Jane Doe', email: 'jane@example.com' },
      licenses: [
        { key: 'SAMPLE-1234-5678-9ABC', status: 'active', product_name: 'Coffee Club', variant: 'Monthly', limit: 3, activation_count: 1, expires_at: at(365) },
      ],
    },
    ctx.host.site,
    settings,
  );
}
