import crypto from 'node:crypto';
import type { ActionMap, ActionName } from '../../src/host/contract';
import { createCoupon } from '../../src/modules/coupons/service';
import { createAddress, type AddressInput } from '../../src/modules/customers/addresses';
import { createProduct } from '../../src/modules/products/service';
import { createMethod, createZone } from '../../src/modules/shipping/service';
import type { TestApp } from './app';

/** Fixtures of the order-writing tests, made through the services (not through the endpoints under test). */
export function orderFixtures(app: TestApp, now: string) {
  const db = () => app.host.db;
  let serial = 0;

  /** A customer row; with `address: true` it gets primary US billing and shipping addresses. */
  async function customer(options: { address?: boolean } = {}): Promise<number> {
    const n = ++serial;
    const [id] = await db()('store_customers').insert({
      email: `buyer${n}-${crypto.randomInt(1e9)}@example.com`,
      first_name: 'Buyer',
      last_name: `No ${n}`,
      uuid: crypto.randomUUID(),
      purchase_value: '{}',
      notes: '',
      created_at: now,
      updated_at: now,
    });
    const customerId = Number(id);
    if (options.address) {
      const base: AddressInput = {
        type: 'billing',
        name: 'Buyer',
        email: 'buyer@example.com',
        address_1: '1 Main St',
        city: 'Los Angeles',
        state: 'CA',
        postcode: '90001',
        country: 'US',
      };
      await createAddress(app.ctx(), customerId, base);
      await createAddress(app.ctx(), customerId, { ...base, type: 'shipping', city: 'San Diego', postcode: '92101' });
    }
    return customerId;
  }

  /** A published product with one variation; returns the variation and product ids. */
  async function variation(
    price: number,
    over: { fulfillment_type?: 'physical' | 'digital'; title?: string; variation?: Record<string, unknown> } = {},
  ): Promise<{ id: number; product_id: number }> {
    const n = ++serial;
    const product = await createProduct(app.ctx(), {
      title: over.title ?? `Product ${n}`,
      status: 'publish',
      fulfillment_type: over.fulfillment_type ?? 'physical',
      variations: [{ title: `Variation ${n}`, price, cost: 100, sku: `SKU-${n}-${crypto.randomInt(1e9)}`, ...over.variation }],
    } as Parameters<typeof createProduct>[1]);
    return { id: product.variations[0].id, product_id: product.id };
  }

  async function coupon(over: Record<string, unknown> = {}): Promise<{ id: number; code: string }> {
    const created = await createCoupon(app.ctx(), { code: `SAVE${++serial}`, type: 'percentage', amount: 10, stackable: 1, ...over } as Parameters<
      typeof createCoupon
    >[1]);
    return { id: created.id, code: created.code };
  }

  /** A zone for `countries` with one method; returns the method id. */
  async function shippingMethod(over: Record<string, unknown> = {}, countries = ['US']): Promise<number> {
    const zone = await createZone(app.ctx(), { name: `Zone ${++serial}`, countries } as Parameters<typeof createZone>[1]);
    const method = await createMethod(app.ctx(), { zone_id: zone.id, title: 'Standard', charge_type: 'flat_rate', charge_amount: 500, ...over } as Parameters<
      typeof createMethod
    >[1]);
    return method.id;
  }

  /** Records the calls of an action until `off()`. */
  function record<N extends ActionName>(name: N) {
    const calls: Array<ActionMap[N]> = [];
    const off = app.host.hooks.addAction(name, (...args) => {
      calls.push(args);
    });
    return { calls, off };
  }

  const count = async (table: string, where: Record<string, unknown> = {}) => Number((await db()(table).where(where).count({ n: '*' }))[0].n);

  return { customer, variation, coupon, shippingMethod, record, count };
}
