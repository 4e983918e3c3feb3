import { createAddress } from '../../src/modules/customers/addresses';
import { DEFAULT_STORE_SETTINGS } from '../../src/modules/settings/store-settings';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { orderFixtures } from '../support/order-writes';
import { insertOrder } from '../support/orders';

const NOW = '2026-11-21 10:00:00';
const SITE = 'http://store.test';

/** The text of the page without tags, one space between words: what a reader sees. */
const visible = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

describe('GET /receipt/?order_hash=', () => {
  let app: TestApp;
  let admin: TestUser;
  let fx: ReturnType<typeof orderFixtures>;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('receipt-admin', ['administrator']);
    fx = orderFixtures(app, NOW);
  });
  afterAll(() => app.close());

  const db = () => app.host.db;
  const settings = (over: Partial<typeof DEFAULT_STORE_SETTINGS>) => app.host.options.set('store_settings', over);
  const receiptPath = async (orderId: number) => {
    const detail = await app.as(admin).get(`${BASE}/orders/${orderId}`).expect(200);
    const url = detail.body.order.receipt_url as string;
    expect(url.startsWith(`${SITE}/receipt/?order_hash=`)).toBe(true);
    return url.slice(SITE.length);
  };

  it('shows what was bought, the totals and the payment, for anyone holding the link, never cached or indexed', async () => {
    await settings({ store_name: 'Corner Shop' });
    const customerId = await fx.customer({ address: true });
    const mug = await fx.variation(3333, { title: 'Mug' });
    const created = await app
      .as(admin)
      .post(`${BASE}/orders`)
      .send({ customer_id: customerId, order_items: [{ id: mug.id, quantity: 3 }] })
      .expect(200);
    const orderId = created.body.order_id as number;
    const path = await receiptPath(orderId);
    expect(path).toBe(`/receipt/?order_hash=${created.body.uuid}`);

    const unpaid = await app.http.get(path);
    expect(unpaid.status).toBe(200);
    expect(unpaid.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(unpaid.headers['cache-control']).toBe('no-store');
    expect(unpaid.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(unpaid.headers['referrer-policy']).toBe('no-referrer');
    expect(unpaid.headers['content-security-policy']).toMatch(/^default-src 'self'; script-src 'self';/);
    expect(unpaid.text).not.toMatch(/<script|style=/);
    const variation = (await db()('store_order_items').where({ order_id: orderId }).first('title')).title as string;
    expect(visible(unpaid.text)).toContain(
      [
        'Corner Shop',
        `Order #${orderId}`,
        'Date: November 21, 2026',
        'Item Quantity Total',
        `Mug – ${variation} 3 $99.99`,
        'Subtotal $99.99 Shipping $0.00 Tax $0.00 Total $99.99 Paid $0.00',
        'Payment status: Pending',
      ].join(' '),
    );
    expect(visible(unpaid.text)).not.toContain('Payment method');
    expect(visible(unpaid.text)).toContain('Billing address Buyer, 1 Main St, LOS ANGELES, CA 90001, United States of America');
    expect(visible(unpaid.text)).toContain('Shipping address Buyer, 1 Main St, SAN DIEGO, CA 92101, United States of America');
    expect(visible(unpaid.text)).not.toContain('Refunded');

    await app.as(admin).post(`${BASE}/orders/${orderId}/mark-as-paid`).send({ payment_method: 'offline' }).expect(200);
    const charge = await db()('store_order_transactions').where({ order_id: orderId, transaction_type: 'charge', status: 'succeeded' }).first('id');
    await app
      .as(admin)
      .post(`${BASE}/orders/${orderId}/refund`)
      .send({ refund_info: { transaction_id: Number(charge.id), amount: '5' } })
      .expect(200);
    const invoice = (await db()('store_orders').where({ id: orderId }).first('invoice_no')).invoice_no as string;
    expect(invoice).toMatch(/^INV-\d+$/);

    const paid = visible((await app.http.get(path).expect(200)).text);
    expect(paid).toContain(`Invoice ${invoice}`);
    expect(paid).not.toContain(`Order #${orderId}`);
    expect(paid).toContain('Total $99.99 Paid $99.99 Refunded -$5.00');
    expect(paid).toMatch(/Payment status: Partially refunded Payment method: \S/);
  });

  it('escapes what shoppers and staff typed: item titles, addresses, the store name', async () => {
    await settings({ store_name: 'Tom & <b>Jerry</b>' });
    const customerId = await fx.customer();
    await createAddress(app.ctx(), customerId, {
      type: 'billing',
      name: '<img src=x onerror=alert(1)>',
      email: '',
      address_1: '"><script>alert(2)</script>',
      city: 'Berlin',
      postcode: '10115',
      country: 'DE',
    });
    const hostile = await fx.variation(1000, { title: '<script>alert("item")</script>' });
    const created = await app
      .as(admin)
      .post(`${BASE}/orders`)
      .send({ customer_id: customerId, order_items: [{ id: hostile.id, quantity: 1 }] })
      .expect(200);
    const res = await app.http.get(await receiptPath(created.body.order_id)).expect(200);
    expect(res.text).not.toContain('<script');
    expect(res.text).not.toContain('<img');
    expect(res.text).not.toContain('<b>');
    expect(res.text).toContain('&lt;script&gt;alert(&quot;item&quot;)&lt;/script&gt;');
    expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(res.text).toContain('&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(res.text).toContain('Tom &amp; &lt;b&gt;Jerry&lt;/b&gt;');
  });

  it('formats money in the order’s currency with the store’s format: JPY has no decimals', async () => {
    await settings({ store_name: 'Tokyo', currency_position: 'after_space', thousand_separator: '.', decimal_separator: ',' });
    const customerId = await fx.customer();
    const yen = await insertOrder(
      db(),
      customerId,
      NOW,
      {
        currency: 'JPY',
        invoice_no: 'INV-77',
        subtotal: 1234567,
        coupon_discount_total: 1000,
        manual_discount_total: 500,
        shipping_total: 800,
        tax_total: 0,
        total_amount: 1233867,
        total_paid: 1233867,
        total_refund: 2000,
        payment_status: 'partially_refunded',
        payment_method: 'bank_transfer',
        payment_method_title: '',
      },
      [{ post_title: 'Tea set', title: 'Tea set', quantity: 2, line_total: 1234567 }],
    );
    const uuid = (await db()('store_orders').where({ id: yen }).first('uuid')).uuid as string;
    const text = visible((await app.http.get(`/receipt/?order_hash=${uuid}`).expect(200)).text);
    expect(text).toContain('Tea set 2 1.234.567 ¥');
    expect(text).toContain('Subtotal 1.234.567 ¥ Discount -1.500 ¥ Shipping 800 ¥ Tax 0 ¥ Total 1.233.867 ¥ Paid 1.233.867 ¥ Refunded -2.000 ¥');
    expect(text).toContain('Payment status: Partially refunded Payment method: Bank transfer');

    const dollars = await insertOrder(db(), customerId, NOW, { currency: 'USD', subtotal: 123456, total_amount: 123456, total_paid: 123456 });
    const usd = (await db()('store_orders').where({ id: dollars }).first('uuid')).uuid as string;
    expect(visible((await app.http.get(`/receipt/?order_hash=${usd}`).expect(200)).text)).toContain('Total 1.234,56 $');
  });

  describe('no receipt', () => {
    it.each([
      ['an unknown order hash', '/receipt/?order_hash=3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b'],
      ['a hash that is not a uuid', '/receipt/?order_hash=1'],
      ['an upper-case uuid', '/receipt/?order_hash=3F2B8C1E-9A4D-4E6F-8B7A-1C2D3E4F5A6B'],
      ['SQL in the hash', "/receipt/?order_hash=' or '1'='1"],
      ['a list of hashes', '/receipt/?order_hash[]=3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b'],
      ['no hash', '/receipt/'],
    ])('%s is the 404 error page', async (_name, path) => {
      const res = await app.http.get(path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('<h1>Error 404</h1>');
      expect(res.text).toContain('This receipt does not exist. Check the link you were given.');
    });

    it('an order whose uuid an administrator chose (not a random uuid) has no receipt page', async () => {
      const customerId = await fx.customer();
      await insertOrder(db(), customerId, NOW, { uuid: 'order-1' });
      expect((await app.http.get('/receipt/?order_hash=order-1')).status).toBe(404);
    });
  });
});
