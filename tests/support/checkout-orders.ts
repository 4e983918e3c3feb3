import { transaction } from '../../src/core/context';
import { holdOrderStock } from '../../src/modules/orders/stock-state';
import { BASE, type TestApp, type TestUser } from './app';

/**
 * Orders as checkout leaves them, for the stock and expiry tests: created through `POST /orders` (items, counted
 * coupon uses, on-hold and payment pending), then marked as placed by checkout (`store_order_operations.created_via`),
 * given the online method and a pending charge, and their stock held, the way place-order does in one transaction.
 */
export function checkoutOrders(app: TestApp, admin: TestUser, now: string) {
  const db = () => app.host.db;

  async function place(
    customerId: number,
    items: Array<{ id: number; quantity: number }>,
    options: { coupons?: Array<{ id: number; code: string }>; method?: string; vendorChargeId?: string; hold?: boolean } = {},
  ): Promise<number> {
    const res = await app
      .as(admin)
      .post(`${BASE}/orders`)
      .send({
        customer_id: customerId,
        order_items: items,
        applied_coupon: (options.coupons ?? []).map((c) => ({ coupon_id: c.id, code: c.code, discounted_amount: 0, stackable: 1 })),
      });
    if (res.status !== 200) throw new Error(`POST /orders answered ${res.status}: ${JSON.stringify(res.body)}`);
    const orderId = res.body.order_id as number;
    const method = options.method ?? 'stripe';
    await transaction(app.ctx(), async (trx) => {
      const order = (await trx('store_orders').where({ id: orderId }).first()) as { uuid: string; total_amount: number; currency: string };
      await trx('store_orders').where({ id: orderId }).update({ payment_method: method, payment_method_title: method });
      await trx('store_order_operations').insert({
        order_id: orderId,
        created_via: 'checkout',
        cart_hash: `cart-${orderId}`,
        created_at: now,
        updated_at: now,
      });
      await trx('store_order_transactions').insert({
        uuid: `${order.uuid}-charge`,
        order_id: orderId,
        transaction_type: 'charge',
        vendor_charge_id: options.vendorChargeId ?? '',
        payment_method: method,
        status: 'pending',
        currency: order.currency,
        total: order.total_amount,
        created_at: now,
        updated_at: now,
      });
      if (options.hold !== false) await holdOrderStock(trx, app.ctx(), orderId);
    });
    return orderId;
  }

  /** A variation's stock columns. */
  async function stockOf(variationId: number): Promise<{ quantity: number; on_hold: number }> {
    const row = (await db()('store_product_variations').where({ id: variationId }).first('stock_quantity', 'stock_on_hold')) as Record<string, number | string>;
    return { quantity: Number(row.stock_quantity), on_hold: Number(row.stock_on_hold) };
  }

  async function stockStateOf(orderId: number): Promise<string> {
    return String((await db()('store_orders').where({ id: orderId }).first('stock_state')).stock_state);
  }

  async function useCountOf(couponId: number): Promise<number> {
    return Number((await db()('store_coupons').where({ id: couponId }).first('use_count')).use_count);
  }

  const activities = async (orderId: number) =>
    ((await db()('store_activities').where({ object_type: 'order', object_id: orderId }).orderBy('id')) as Array<{ title: string; content: string }>).map(
      (a) => [a.title, a.content],
    );

  return { place, stockOf, stockStateOf, useCountOf, activities };
}
