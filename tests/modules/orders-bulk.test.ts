import type { ActionMap, ActionName } from '../../src/host/contract';
import type { GatewayTransaction, PaymentGateway } from '../../src/gateways/gateway';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder as insertOrderRow } from '../support/orders';

const NOW = '2026-11-21 10:00:00';

/** `POST /orders/do-bulk-action`: every action, its messages, permissions, stored state and hooks. */
describe('POST /orders/do-bulk-action', () => {
  let app: TestApp;
  let admin: TestUser;
  let clerk: TestUser;
  let shopper: TestUser;
  let productManager: TestUser;
  let customerId: number;
  let n = 0;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    clerk = await app.createUser('clerk', ['customer_service']);
    shopper = await app.createUser('shopper', ['customer']);
    productManager = await app.createUser('pm', ['product_manager']);
    customerId = await newCustomer();
  });
  afterAll(() => app.close());

  const db = () => app.host.db;

  async function newCustomer(): Promise<number> {
    const res = await app
      .as(admin)
      .post(`${BASE}/customers`)
      .send({ email: `buyer${++n}@example.com`, first_name: 'Buyer' });
    expect(res.status).toBe(200);
    return res.body.data.id;
  }

  const insertOrder = (over: Record<string, unknown> = {}, items: Array<Record<string, unknown>> = [], customer = customerId) =>
    insertOrderRow(db(), customer, NOW, over, items);

  const order = async (id: number) => db()('store_orders').where({ id }).first();

  const bulk = (body: Record<string, unknown>, user: TestUser = admin) => app.as(user).post(`${BASE}/orders/do-bulk-action`).send(body);

  function record<N extends ActionName>(name: N) {
    const calls: Array<ActionMap[N]> = [];
    const off = app.host.hooks.addAction(name, (...args) => {
      calls.push(args);
    });
    return { calls, off };
  }

  const activities = async (id: number) =>
    (await db()('store_activities').where({ object_type: 'order', object_id: id }).orderBy('id')).map((a: { title: string; content: string }) => [
      a.title,
      a.content,
    ]);

  /** A product with one stock-managed variation; returns the variation and product ids. */
  async function variation(stock: number): Promise<{ variation_id: number; post_id: number }> {
    const res = await app
      .as(admin)
      .post(`${BASE}/products`)
      .send({ title: 'Mug', variations: [{ title: 'Blue mug', price: 1200, manage_stock: 1, stock_quantity: stock }] });
    expect(res.status).toBe(200);
    return { variation_id: res.body.product.variations[0].id, post_id: res.body.product.id };
  }
  const stock = async (id: number) => Number((await db()('store_product_variations').where({ id }).first('stock_quantity')).stock_quantity);

  describe('access and validation', () => {
    it('answers 401 to anonymous callers and 403 without an order permission', async () => {
      const id = await insertOrder({ status: 'on-hold' });
      const anonymous = await app.http.post(`${BASE}/orders/do-bulk-action`).send({ action: 'change_order_status', order_ids: [id], new_status: 'canceled' });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ code: 'rest_forbidden' });
      for (const user of [shopper, productManager]) {
        const res = await bulk({ action: 'change_order_status', order_ids: [id], new_status: 'canceled' }, user);
        expect(res.status).toBe(403);
      }
      expect((await order(id)).status).toBe('on-hold');
    });

    it('orders/manage_statuses alone (customer service) reaches the status changes, and nothing else: 403 {message}, nothing changed', async () => {
      const id = await insertOrder({ status: 'on-hold', payment_status: 'pending', total_paid: 0 });
      const deleted = record('store/order/deleted');
      for (const body of [
        { action: 'delete_orders', order_ids: [id] },
        { action: 'capture_payments', order_ids: [id] },
      ]) {
        const res = await bulk(body, clerk);
        expect([res.status, res.body]).toEqual([403, { message: 'Sorry, you are not allowed to do that.' }]);
      }
      deleted.off();
      expect(deleted.calls).toEqual([]);
      expect(await order(id)).toMatchObject({ status: 'on-hold', shipping_status: '', payment_status: 'pending' });

      for (const [body, message] of [
        [{ action: 'change_shipping_status', order_ids: [id], new_status: 'shipped' }, 'Shipping status has been changed to shipped for the selected orders.'],
        [{ action: 'change_order_status', order_ids: [id], new_status: 'processing' }, 'Order status has been changed to processing for the selected orders.'],
        [{ action: 'change_payment_status', order_ids: [id], new_status: 'failed' }, 'Payment status has been changed to failed for the selected orders.'],
      ] as const) {
        const res = await bulk(body, clerk);
        expect([res.status, res.body]).toEqual([200, { message }]);
      }
      expect(await order(id)).toMatchObject({ status: 'processing', shipping_status: 'shipped', payment_status: 'failed' });
    });

    it('delete_orders needs orders/delete besides orders/manage: an order editor without it gets 403 and the order stays', async () => {
      const created = await app
        .as(admin)
        .post(`${BASE}/roles`)
        .send({ title: 'Order editor', capabilities: ['orders/view', 'orders/manage'] });
      expect(created.status).toBe(200);
      const editor = await app.createUser('editor', [created.body.role.key]);
      const id = await insertOrder({ status: 'canceled', payment_status: 'pending', total_paid: 0 });
      const res = await bulk({ action: 'delete_orders', order_ids: [id] }, editor);
      expect([res.status, res.body]).toEqual([403, { message: 'Sorry, you are not allowed to do that.' }]);
      expect(await order(id)).toMatchObject({ status: 'canceled' });
      const manager = await app.createUser('manager', ['order_manager']);
      expect((await bulk({ action: 'delete_orders', order_ids: [id] }, manager)).body).toEqual({ message: 'Selected orders have been deleted successfully.' });
      expect(await order(id)).toBeUndefined();
    });

    it('refuses a missing or unknown action, an empty selection and bad statuses with 422, changing nothing', async () => {
      const id = await insertOrder({ status: 'processing' });
      const cases: Array<[Record<string, unknown>, string, Record<string, Record<string, string>>]> = [
        [{ order_ids: [id] }, 'The action field is required.', { action: { required: 'The action field is required.' } }],
        [
          { action: 'archive', order_ids: [id] },
          'The action must be one of: delete_orders, change_shipping_status, change_order_status, capture_payments, change_payment_status.',
          {
            action: {
              in: 'The action must be one of: delete_orders, change_shipping_status, change_order_status, capture_payments, change_payment_status.',
            },
          },
        ],
        [
          { action: 'change_order_status', new_status: 'canceled' },
          'The order ids field is required.',
          { order_ids: { required: 'The order ids field is required.' } },
        ],
        [{ action: 'delete_orders', order_ids: [] }, 'Please select at least one order.', { order_ids: { min: 'Please select at least one order.' } }],
        [
          { action: 'delete_orders', order_ids: ['abc'] },
          'The order id must be a positive integer.',
          { 'order_ids.0': { integer: 'The order id must be a positive integer.' } },
        ],
        [
          { action: 'change_order_status', order_ids: [id] },
          'The new status field is required.',
          { new_status: { required: 'The new status field is required.' } },
        ],
        [
          { action: 'change_order_status', order_ids: [id], new_status: 'pending' },
          'The new status must be one of: completed, processing, on-hold, canceled.',
          { new_status: { in: 'The new status must be one of: completed, processing, on-hold, canceled.' } },
        ],
        [
          { action: 'change_shipping_status', order_ids: [id], new_status: 'lost' },
          'The new status must be one of: unshipped, shipped, delivered, unshippable.',
          { new_status: { in: 'The new status must be one of: unshipped, shipped, delivered, unshippable.' } },
        ],
        [
          { action: 'change_payment_status', order_ids: [id], new_status: 'free' },
          'The new status must be one of: pending, authorized, paid, partially-paid, partially-refunded, refunded, failed.',
          { new_status: { in: 'The new status must be one of: pending, authorized, paid, partially-paid, partially-refunded, refunded, failed.' } },
        ],
        [
          { action: 'change_order_status', order_ids: [id], new_status: 'canceled', manage_stock: 'maybe' },
          'The manage stock field must be true or false.',
          { manage_stock: { boolean: 'The manage stock field must be true or false.' } },
        ],
      ];
      for (const [body, message, errors] of cases) {
        const res = await bulk(body);
        expect([res.status, res.body]).toEqual([422, { message, errors }]);
      }
      expect(await order(id)).toMatchObject({ status: 'processing', shipping_status: '', payment_status: 'paid' });
    });
  });

  describe('change_order_status', () => {
    it('sets the status, writes an activity, fires status_changed (and canceled), and reports unknown ids', async () => {
      const a = await insertOrder({ status: 'processing' });
      const b = await insertOrder({ status: 'on-hold' });
      const already = await insertOrder({ status: 'canceled' });
      const changed = record('store/order/status_changed');
      const canceled = record('store/order/canceled');
      const res = await bulk({ action: 'change_order_status', order_ids: [a, b, already, 999999], new_status: 'canceled' });
      changed.off();
      canceled.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Order status has been changed to canceled for 3 of 4 selected orders. 1 order was not found.' });
      expect([(await order(a)).status, (await order(b)).status, (await order(already)).status]).toEqual(['canceled', 'canceled', 'canceled']);
      expect(changed.calls.map(([o, previous]) => [o.id, o.status, previous])).toEqual([
        [a, 'canceled', 'processing'],
        [b, 'canceled', 'on-hold'],
      ]);
      expect(canceled.calls.map(([o, previous]) => [o.id, previous])).toEqual([
        [a, 'processing'],
        [b, 'on-hold'],
      ]);
      expect(await activities(a)).toEqual([['Order status changed', 'From processing to canceled.']]);
      expect(await activities(already)).toEqual([]);
    });

    it('completed stamps completed_at once; all found orders give the short message', async () => {
      const id = await insertOrder({ status: 'processing' });
      const res = await bulk({ action: 'change_order_status', order_ids: [id, String(id)], new_status: 'completed' });
      expect(res.body).toEqual({ message: 'Order status has been changed to completed for the selected orders.' });
      expect(await order(id)).toMatchObject({ status: 'completed', completed_at: NOW });
    });

    it('with manage_stock, canceling gives the stock back and leaving canceled takes it again', async () => {
      const item = await variation(10);
      const id = await insertOrder({ status: 'processing' }, [{ ...item, quantity: 3 }]);
      const stockChanges = record('store/variation/stock_changed');
      await bulk({ action: 'change_order_status', order_ids: [id], new_status: 'canceled', manage_stock: 'true' }).expect(200);
      expect(await stock(item.variation_id)).toBe(13);
      expect(await activities(id)).toEqual([['Order status changed', 'From processing to canceled. Stock was restored.']]);
      await bulk({ action: 'change_order_status', order_ids: [id], new_status: 'processing', manage_stock: true }).expect(200);
      expect(await stock(item.variation_id)).toBe(10);
      stockChanges.off();
      expect(stockChanges.calls.map(([v, previous]) => [v.id, v.stock_quantity, previous])).toEqual([
        [item.variation_id, 13, 10],
        [item.variation_id, 10, 13],
      ]);
    });

    it('without manage_stock leaves stock alone', async () => {
      const item = await variation(4);
      const id = await insertOrder({ status: 'processing' }, [{ ...item, quantity: 2 }]);
      await bulk({ action: 'change_order_status', order_ids: [id], new_status: 'canceled', manage_stock: 'false' }).expect(200);
      await bulk({ action: 'change_order_status', order_ids: [id], new_status: 'on-hold' }).expect(200);
      expect(await stock(item.variation_id)).toBe(4);
    });

    it('refuses the whole action with 422 when the stock to take back is not there', async () => {
      const item = await variation(1);
      const fine = await insertOrder({ status: 'canceled' }, [{ ...item, quantity: 1 }]);
      const short = await insertOrder({ status: 'canceled' }, [{ ...item, quantity: 2 }]);
      const changed = record('store/order/status_changed');
      const res = await bulk({ action: 'change_order_status', order_ids: [fine, short], new_status: 'processing', manage_stock: 'true' });
      changed.off();
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'Insufficient stock for Blue mug.' });
      expect([(await order(fine)).status, (await order(short)).status]).toEqual(['canceled', 'canceled']);
      expect(await stock(item.variation_id)).toBe(1);
      expect(changed.calls).toEqual([]);
      expect(await activities(fine)).toEqual([]);
    });

    it('skips items whose product was deleted', async () => {
      const item = await variation(5);
      const id = await insertOrder({ status: 'processing' }, [
        { variation_id: 987654, post_id: 987654, quantity: 1 },
        { ...item, quantity: 1 },
      ]);
      await bulk({ action: 'change_order_status', order_ids: [id], new_status: 'canceled', manage_stock: 'true' }).expect(200);
      expect(await stock(item.variation_id)).toBe(6);
    });
  });

  describe('change_shipping_status', () => {
    it('sets the status and fires shipping_status_changed with its _to_<status> twin', async () => {
      const a = await insertOrder({ status: 'processing' });
      const b = await insertOrder({ status: 'processing', shipping_status: 'shipped' });
      const changed = record('store/order/shipping_status_changed');
      const shipped = record('store/order/shipping_status_changed_to_shipped');
      const delivered = record('store/order/shipping_status_changed_to_delivered');
      const res = await bulk({ action: 'change_shipping_status', order_ids: [a, b], new_status: 'shipped' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Shipping status has been changed to shipped for the selected orders.' });
      await bulk({ action: 'change_shipping_status', order_ids: [b], new_status: 'delivered' }).expect(200);
      changed.off();
      shipped.off();
      delivered.off();
      expect(changed.calls.map(([o, previous]) => [o.id, o.shipping_status, previous])).toEqual([
        [a, 'shipped', ''],
        [b, 'delivered', 'shipped'],
      ]);
      expect(shipped.calls.map(([o]) => o.id)).toEqual([a]);
      expect(delivered.calls.map(([o]) => o.id)).toEqual([b]);
      expect([(await order(a)).shipping_status, (await order(b)).shipping_status]).toEqual(['shipped', 'delivered']);
      expect(await activities(a)).toEqual([['Shipping status changed', 'From none to shipped.']]);
      expect(await activities(b)).toEqual([['Shipping status changed', 'From shipped to delivered.']]);
    });

    it('fires the unshipped and unshippable variants', async () => {
      const id = await insertOrder({ shipping_status: 'shipped' });
      const unshipped = record('store/order/shipping_status_changed_to_unshipped');
      const unshippable = record('store/order/shipping_status_changed_to_unshippable');
      await bulk({ action: 'change_shipping_status', order_ids: [id], new_status: 'unshipped' }).expect(200);
      await bulk({ action: 'change_shipping_status', order_ids: [id], new_status: 'unshippable' }).expect(200);
      unshipped.off();
      unshippable.off();
      expect([unshipped.calls.length, unshippable.calls.length]).toEqual([1, 1]);
    });
  });

  describe('change_payment_status', () => {
    it('sets a payment status, fires payment_status_changed and recomputes the customer statistics', async () => {
      const customer = await newCustomer();
      const a = await insertOrder({ total_amount: 3000, total_paid: 3000 }, [], customer);
      const b = await insertOrder({ total_amount: 2000, total_paid: 2000 }, [], customer);
      await app.as(admin).post(`${BASE}/customers/${customer}/recalculate-ltv`).send({});
      expect(await db()('store_customers').where({ id: customer }).first('ltv', 'purchase_count')).toEqual({ ltv: 5000, purchase_count: 2 });
      const changed = record('store/order/payment_status_changed');
      const res = await bulk({ action: 'change_payment_status', order_ids: [a], new_status: 'failed' });
      changed.off();
      expect(res.body).toEqual({ message: 'Payment status has been changed to failed for the selected orders.' });
      expect((await order(a)).payment_status).toBe('failed');
      expect(changed.calls.map(([o, previous]) => [o.id, o.payment_status, previous])).toEqual([[a, 'failed', 'paid']]);
      expect(await db()('store_customers').where({ id: customer }).first('ltv', 'purchase_count')).toEqual({ ltv: 2000, purchase_count: 1 });
      expect(await activities(a)).toEqual([['Payment status changed', 'From paid to failed.']]);
      expect((await order(b)).payment_status).toBe('paid');
    });

    it('accepts the underscore spellings', async () => {
      const id = await insertOrder({ payment_status: 'paid' });
      await bulk({ action: 'change_payment_status', order_ids: [id], new_status: 'partially_refunded' }).expect(200);
      expect((await order(id)).payment_status).toBe('partially-refunded');
    });

    it('paid marks orders paid like mark-as-paid (charge, invoice number, paid hook) and leaves canceled or refunded ones', async () => {
      const pending = await insertOrder({ status: 'on-hold', payment_status: 'pending', total_amount: 1500, total_paid: 0, invoice_no: '' });
      const canceled = await insertOrder({ status: 'canceled', payment_status: 'pending', total_paid: 0 });
      const refunded = await insertOrder({ status: 'completed', payment_status: 'refunded', total_refund: 1000 });
      const paid = record('store/order/paid');
      const res = await bulk({ action: 'change_payment_status', order_ids: [pending, canceled, refunded], new_status: 'paid' });
      paid.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message:
          'Payment status has been changed to paid for 1 of 3 selected orders. 1 canceled order cannot be marked paid. 1 order was already paid and then refunded.',
      });
      const stored = await order(pending);
      expect(stored).toMatchObject({ payment_status: 'paid', status: 'processing', total_paid: 1500 });
      expect(stored.receipt_number).not.toBeNull();
      expect(stored.invoice_no).not.toBe('');
      expect(await db()('store_order_transactions').where({ order_id: pending }).select('transaction_type', 'status', 'total')).toEqual([
        { transaction_type: 'charge', status: 'succeeded', total: 1500 },
      ]);
      expect(paid.calls.map(([o]) => o.id)).toEqual([pending]);
      expect((await order(canceled)).payment_status).toBe('pending');
      expect((await order(refunded)).payment_status).toBe('refunded');
    });
  });

  describe('delete_orders', () => {
    it('deletes safe orders with their rows, fires deleted, and keeps paid ones (said in the message)', async () => {
      const onHold = await insertOrder({ status: 'on-hold', payment_status: 'pending', total_paid: 0 }, [{ quantity: 1 }]);
      const canceled = await insertOrder({ status: 'canceled', payment_status: 'failed', total_paid: 0 });
      const paid = await insertOrder({ status: 'processing', payment_status: 'paid' });
      const canceledPaid = await insertOrder({ status: 'canceled', payment_status: 'paid' });
      const label = await app
        .as(admin)
        .post(`${BASE}/labels`)
        .send({ title: `Label ${++n}` });
      await db()('store_label_relations').insert({ label_id: label.body.label.id, object_type: 'order', object_id: onHold, created_at: NOW });
      await db()('store_order_addresses').insert({ order_id: onHold, type: 'billing', created_at: NOW, updated_at: NOW });
      const deleted = record('store/order/deleted');
      const res = await bulk({ action: 'delete_orders', order_ids: [onHold, canceled, paid, canceledPaid] });
      deleted.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message:
          '2 of 4 selected orders deleted. 2 orders were not deleted: only unpaid orders that are canceled, on-hold, draft, pending or failed can be deleted, and a subscription order only together with all its renewals and once its subscription has ended (cancel it first).',
      });
      expect(await db()('store_orders').whereIn('id', [onHold, canceled, paid, canceledPaid]).pluck('id')).toEqual([paid, canceledPaid]);
      expect(await db()('store_order_items').where({ order_id: onHold }).first()).toBeUndefined();
      expect(await db()('store_order_addresses').where({ order_id: onHold }).first()).toBeUndefined();
      expect(await db()('store_label_relations').where({ object_type: 'order', object_id: onHold }).first()).toBeUndefined();
      expect(deleted.calls.map(([o]) => o.id).sort((x, y) => x - y)).toEqual([onHold, canceled]);
      expect(await activities(onHold)).toEqual([['Order deleted', expect.stringMatching(new RegExp(`^Order #${onHold} \\(INV-\\d+\\) was deleted\\.$`))]]);
    });

    it('answers the short message when every selected order went', async () => {
      const id = await insertOrder({ status: 'on-hold', payment_status: 'pending', total_paid: 0 });
      const res = await bulk({ action: 'delete_orders', order_ids: [id, 424242] });
      expect(res.body).toEqual({ message: '1 of 2 selected orders deleted. 1 order was not found.' });
      const other = await insertOrder({ status: 'pending', payment_status: 'pending', total_paid: 0 });
      expect((await bulk({ action: 'delete_orders', order_ids: [other] })).body).toEqual({ message: 'Selected orders have been deleted successfully.' });
    });

    it('takes a subscription order’s renewals with it, and keeps the whole family when a renewal was paid', async () => {
      const parent = await insertOrder({ type: 'subscription', status: 'canceled', payment_status: 'pending', total_paid: 0 });
      const renewals = [
        await insertOrder({ type: 'renewal', parent_id: parent, status: 'on-hold', payment_status: 'pending', total_paid: 0 }),
        await insertOrder({ type: 'renewal', parent_id: parent, status: 'canceled', payment_status: 'failed', total_paid: 0 }),
      ];
      const deleted = record('store/order/deleted');
      const res = await bulk({ action: 'delete_orders', order_ids: [parent] });
      deleted.off();
      expect(res.body).toEqual({ message: 'Selected orders have been deleted successfully. 2 renewal orders were deleted with their subscription orders.' });
      expect(
        await db()('store_orders')
          .whereIn('id', [parent, ...renewals])
          .pluck('id'),
      ).toEqual([]);
      expect(deleted.calls.map(([o]) => o.id).sort((x, y) => x - y)).toEqual([parent, ...renewals]);
      expect(await activities(renewals[0])).toEqual([['Order deleted', expect.stringContaining(`with its parent order #${parent}`)]]);

      const keptParent = await insertOrder({ type: 'subscription', status: 'canceled', payment_status: 'pending', total_paid: 0 });
      const paidRenewal = await insertOrder({ type: 'renewal', parent_id: keptParent, status: 'completed', payment_status: 'paid' });
      const kept = await bulk({ action: 'delete_orders', order_ids: [keptParent] });
      expect(kept.body.message).toMatch(/^0 of 1 selected orders deleted\. 1 order was not deleted/);
      expect(await db()('store_orders').whereIn('id', [keptParent, paidRenewal]).pluck('id')).toEqual([keptParent, paidRenewal]);
    });

    it('deletes test-mode orders whatever their state and recomputes the customer statistics', async () => {
      const customer = await newCustomer();
      const live = await insertOrder({ total_amount: 1000, total_paid: 1000 }, [], customer);
      const test = await insertOrder({ mode: 'test', total_amount: 4000, total_paid: 4000 }, [], customer);
      await app.as(admin).post(`${BASE}/customers/${customer}/recalculate-ltv`).send({});
      expect((await db()('store_customers').where({ id: customer }).first('ltv')).ltv).toBe(5000);
      await bulk({ action: 'delete_orders', order_ids: [test] }).expect(200);
      expect(await order(test)).toBeUndefined();
      expect(await order(live)).toBeDefined();
      expect(await db()('store_customers').where({ id: customer }).first('ltv', 'purchase_count')).toEqual({ ltv: 1000, purchase_count: 1 });
    });
  });

  describe('capture_payments', () => {
    const captured: GatewayTransaction[] = [];
    let answer: 'success' | 'failed' = 'success';
    let delayMs = 0;
    const fakepay: PaymentGateway = {
      key: 'fakepay',
      title: 'Fake Pay',
      capabilities: { refund: true, capture: true },
      refund: async () => ({ status: 'success', message: 'Refunded' }),
      capture: async (_ctx, transaction) => {
        captured.push(transaction);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        return answer === 'success'
          ? { status: 'success', message: 'Captured', vendor_id: `cap_${transaction.id}` }
          : { status: 'failed', message: 'Card declined.' };
      },
    };
    let off: () => void;
    beforeAll(() => {
      off = app.host.hooks.addFilter('store/payment_gateways', (gateways) => [...gateways, fakepay]);
    });
    afterAll(() => off());
    beforeEach(() => {
      captured.length = 0;
      answer = 'success';
      delayMs = 0;
    });

    async function authorizedOrder(method = 'fakepay', total = 2500): Promise<{ orderId: number; chargeId: number }> {
      const orderId = await insertOrder({
        status: 'on-hold',
        payment_status: 'authorized',
        payment_method: method,
        total_amount: total,
        total_paid: 0,
        invoice_no: '',
      });
      const [chargeId] = await db()('store_order_transactions').insert({
        uuid: `tx-${orderId}`,
        order_id: orderId,
        transaction_type: 'charge',
        payment_method: method,
        vendor_charge_id: `auth_${orderId}`,
        status: 'authorized',
        total,
        created_at: NOW,
        updated_at: NOW,
      });
      return { orderId, chargeId: Number(chargeId) };
    }
    const charge = async (id: number) => db()('store_order_transactions').where({ id }).first('status', 'vendor_charge_id', 'total');

    it('captures through the gateway and marks the order paid', async () => {
      const { orderId, chargeId } = await authorizedOrder();
      const paid = record('store/order/paid');
      const res = await bulk({ action: 'capture_payments', order_ids: [orderId] });
      paid.off();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Payments of the selected orders have been captured successfully.' });
      expect(captured.map((t) => [t.id, t.vendor_charge_id, t.total])).toEqual([[chargeId, `auth_${orderId}`, 2500]]);
      expect(await charge(chargeId)).toEqual({ status: 'succeeded', vendor_charge_id: `cap_${chargeId}`, total: 2500 });
      expect(await db()('store_order_transactions').where({ order_id: orderId }).count({ n: '*' })).toEqual([{ n: 1 }]);
      const stored = await order(orderId);
      expect(stored).toMatchObject({ payment_status: 'paid', status: 'processing', total_paid: 2500, payment_method: 'fakepay' });
      expect(stored.receipt_number).not.toBeNull();
      expect(paid.calls.map(([o]) => o.id)).toEqual([orderId]);
      expect((await activities(orderId)).map(([title]) => title)).toEqual(['Order marked as paid', 'Payment captured']);
    });

    it('reports failures, offline methods and orders without an authorised payment; a failed charge stays authorised', async () => {
      answer = 'failed';
      const declined = await authorizedOrder();
      const offline = await authorizedOrder('cod');
      const nothing = await insertOrder({ status: 'on-hold', payment_status: 'pending', total_paid: 0 });
      const res = await bulk({ action: 'capture_payments', order_ids: [declined.orderId, offline.orderId, nothing, 777777] });
      expect(res.body).toEqual({
        message:
          'Payments captured for 0 of 4 selected orders. 1 order has no authorized payment to capture. 1 order uses a payment method that cannot capture payments. 1 capture failed: Card declined. 1 order was not found.',
      });
      expect(await charge(declined.chargeId)).toMatchObject({ status: 'authorized' });
      expect(await charge(offline.chargeId)).toMatchObject({ status: 'authorized' });
      expect((await order(declined.orderId)).payment_status).toBe('authorized');
      expect(await activities(declined.orderId)).toEqual([['Payment capture failed', 'Card declined.']]);
      expect(captured).toHaveLength(1);
    });

    it('never captures one charge twice, even with parallel requests', async () => {
      delayMs = 50;
      const { orderId, chargeId } = await authorizedOrder();
      const answers = await Promise.all(Array.from({ length: 5 }, () => bulk({ action: 'capture_payments', order_ids: [orderId] })));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(captured).toHaveLength(1);
      expect(answers.filter((r) => r.body.message === 'Payments of the selected orders have been captured successfully.')).toHaveLength(1);
      expect(await charge(chargeId)).toMatchObject({ status: 'succeeded' });
      expect((await order(orderId)).total_paid).toBe(2500);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays a bulk action sent twice with one key instead of running it again', async () => {
      const id = await insertOrder({ status: 'processing' });
      const changed = record('store/order/status_changed');
      const send = () =>
        app
          .as(admin)
          .post(`${BASE}/orders/do-bulk-action`)
          .set('Idempotency-Key', `bulk-${id}`)
          .send({ action: 'change_order_status', order_ids: [id], new_status: 'on-hold' });
      const first = await send();
      await db()('store_orders').where({ id }).update({ status: 'processing' });
      const second = await send();
      changed.off();
      expect(first.body).toEqual({ message: 'Order status has been changed to on-hold for the selected orders.' });
      expect(second.body).toEqual(first.body);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(changed.calls).toHaveLength(1);
      expect((await order(id)).status).toBe('processing');
    });
  });
});
