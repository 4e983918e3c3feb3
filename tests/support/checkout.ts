import type { Response, Test } from 'supertest';
import type { PaymentGateway, PaymentRequest, PaymentStart } from '../../src/gateways/gateway';
import { BASE, type Browser, type TestApp, type TestUser } from './app';
import { orderFixtures } from './order-writes';

export const NOW = '2026-11-21 10:00:00';

/** A gateway for the online checkout paths, registered through `store/payment_gateways`; `next` says how it answers. */
export interface TestGateway extends PaymentGateway {
  requests: PaymentRequest[];
  next: PaymentStart | Error;
  offered: boolean;
}

export function testGateway(key = 'testpay'): TestGateway {
  let serial = 0;
  const gateway: TestGateway = {
    key,
    title: 'Test Pay',
    capabilities: { refund: false, capture: false },
    requests: [],
    next: { kind: 'redirect', redirect_url: 'https://pay.example/checkout/1', vendor_charge_id: 'tp_1' },
    offered: true,
    availableAtCheckout: async () => gateway.offered,
    getOrderInfo: async () => ({ status: 'success', message: 'ready', data: { key: 'public-key' }, payment_args: { checkout_mode: 'onsite' } }),
    startPayment: async (_ctx, request) => {
      gateway.requests.push(request);
      if (gateway.next instanceof Error) throw gateway.next;
      serial += 1;
      const next = gateway.next;
      // Each payment the gateway starts has its own id, as a vendor's would.
      return next.kind === 'offline' ? next : { ...next, vendor_charge_id: `${next.vendor_charge_id}_${serial}` };
    },
    refund: async () => ({ status: 'skipped', message: 'n/a' }),
    capture: async () => ({ status: 'skipped', message: 'n/a' }),
  };
  return gateway;
}

/** A US address the default store settings accept, as place-order fields. */
export function guestForm(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    billing_email: 'jane@example.com',
    billing_first_name: 'Jane',
    billing_last_name: 'Doe',
    billing_address_1: '1 Market Street',
    billing_city: 'San Francisco',
    billing_state: 'CA',
    billing_postcode: '94105',
    billing_country: 'US',
    payment_method: 'cod',
    ...over,
  };
}

const hashOf = (res: Response) => /fct_cart_hash=([0-9a-f]{32})/.exec(String(res.headers['set-cookie']))?.[1];

/** The place-order fixtures: carts through the cart API, settings through the admin API, reads of what was stored. */
export function checkoutFixtures(app: TestApp, admin: () => TestUser) {
  const fx = orderFixtures(app, NOW);
  const db = () => app.host.db;

  /** A new guest cart (or the browser's) holding the lines; returns its hash. */
  async function cartWith(lines: Array<[variationId: number, quantity: number]>, browser?: Browser): Promise<string> {
    let hash: string | undefined;
    for (const [variation_id, quantity] of lines) {
      const call = browser ? browser.call('post', `${BASE}/cart/items`) : app.http.post(`${BASE}/cart/items`);
      const res = await (hash ? call.set('Cookie', `fct_cart_hash=${hash}`) : call).send({ variation_id, quantity });
      if (res.status !== 200) throw new Error(`POST /cart/items answered ${res.status}: ${JSON.stringify(res.body)}`);
      hash = hashOf(res) ?? hash;
    }
    return hash as string;
  }

  function place(hash: string | null, body: Record<string, unknown>, browser?: Browser): Test {
    const call = browser ? browser.call('post', `${BASE}/checkout/place-order`) : app.http.post(`${BASE}/checkout/place-order`);
    return (hash ? call.set('Cookie', `fct_cart_hash=${hash}`) : call).send(body);
  }

  async function paymentSettings(gateways: Record<string, Record<string, unknown>>): Promise<void> {
    const res = await app.as(admin()).put(`${BASE}/settings/payment-methods`).send({ gateways });
    if (res.status !== 200) throw new Error(`payment settings: ${res.status} ${JSON.stringify(res.body)}`);
  }

  async function storeSettings(patch: Record<string, unknown>): Promise<void> {
    const res = await app.as(admin()).put(`${BASE}/settings/store`).send(patch);
    if (res.status !== 200) throw new Error(`store settings: ${res.status} ${JSON.stringify(res.body)}`);
  }

  /** A managed variation with `stock` units. */
  const stocked = (price: number, stock: number, over: { fulfillment_type?: 'physical' | 'digital'; title?: string } = {}) =>
    fx.variation(price, { ...over, variation: { manage_stock: 1, stock_quantity: stock } });

  const cartRow = async (hash: string) => (await db()('store_carts').where({ cart_hash: hash }).first()) as Record<string, unknown>;
  const orderRow = async (id: number) => (await db()('store_orders').where({ id }).first()) as Record<string, unknown>;
  const stockOf = async (variationId: number) => {
    const row = (await db()('store_product_variations').where({ id: variationId }).first('stock_quantity', 'stock_on_hold')) as Record<string, unknown>;
    return { quantity: Number(row.stock_quantity), on_hold: Number(row.stock_on_hold) };
  };
  /** The order a cart became. */
  const orderOfCart = async (hash: string) => orderRow(Number((await cartRow(hash)).order_id));

  /** Everything stored about the store's orders, for "nothing was written" checks. */
  async function snapshot(): Promise<Record<string, number>> {
    const tables = ['store_orders', 'store_order_items', 'store_order_transactions', 'store_order_addresses', 'store_order_operations', 'store_customers'];
    const counts = Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await fx.count(table)] as const)));
    const held = (await db()('store_product_variations').sum({ n: 'stock_on_hold' }))[0].n;
    const users = await fx.count('users');
    return { ...counts, stock_on_hold: Number(held ?? 0), users };
  }

  return { ...fx, cartWith, place, paymentSettings, storeSettings, stocked, cartRow, orderRow, orderOfCart, stockOf, snapshot };
}
