import { centsToDecimal } from '../../src/core/money';
import { ledgerOf } from '../../src/modules/orders/ledger';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { insertOrder as insertOrderRow } from '../support/orders';

const NOW = '2026-11-21 10:00:00';
const SEQUENCES = 30;
const STEPS = 8;

/** mulberry32: a small seeded PRNG, so a failing sequence can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Charge {
  id: number;
  total: number;
  refunded: number;
}

/** What the ledger should hold, kept by the test independently of the service. */
interface Model {
  orderId: number;
  total: number;
  paymentStatus: string;
  charges: Charge[];
}

const paidOf = (m: Model) => m.charges.reduce((s, c) => s + c.total, 0);
const refundedOf = (m: Model) => m.charges.reduce((s, c) => s + c.refunded, 0);

function expectedPaymentStatus(m: Model): string {
  const paid = paidOf(m);
  const refunded = refundedOf(m);
  if (refunded > 0) return refunded >= paid ? 'refunded' : 'partially-refunded';
  if (paid === 0) return 'pending';
  return paid < m.total ? 'partially-paid' : 'paid';
}

type Op = 'pay' | 'partial' | 'full' | 'over';
const OPS: Op[] = ['pay', 'partial', 'partial', 'full', 'over'];

describe('orders ledger (property): random pay / partial refund / full refund sequences through the API', () => {
  let app: TestApp;
  let admin: TestUser;
  let customerId: number;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await app.createUser('admin', ['administrator']);
    const res = await app.as(admin).post(`${BASE}/customers`).send({ email: 'ledger@example.com', first_name: 'Ledger' });
    expect(res.status).toBe(200);
    customerId = res.body.data.id;
  });
  afterAll(() => app.close());

  const db = () => app.host.db;

  /** A new order, sometimes already partly paid by a first succeeded charge. */
  async function newOrder(rand: () => number): Promise<Model> {
    const total = 1 + Math.floor(rand() * 200000);
    const upfront = total > 1 && rand() < 0.3 ? 1 + Math.floor(rand() * (total - 1)) : 0;
    const orderId = await insertOrderRow(db(), customerId, NOW, {
      invoice_no: '',
      status: 'on-hold',
      payment_status: upfront ? 'partially-paid' : 'pending',
      fulfillment_type: rand() < 0.5 ? 'digital' : 'physical',
      total_amount: total,
      total_paid: upfront,
    });
    const charges: Charge[] = [];
    if (upfront) {
      const [id] = await db()('store_order_transactions').insert({
        uuid: `upfront-${orderId}`,
        order_id: orderId,
        transaction_type: 'charge',
        status: 'succeeded',
        payment_method: 'offline',
        total: upfront,
        created_at: NOW,
        updated_at: NOW,
      });
      charges.push({ id: Number(id), total: upfront, refunded: 0 });
    }
    return { orderId, total, paymentStatus: upfront ? 'partially-paid' : 'pending', charges };
  }

  /** Amounts go as decimal strings or, sometimes, as JSON numbers; both must parse to the exact cents. */
  const amountOf = (cents: number, rand: () => number) => (rand() < 0.3 ? Number(centsToDecimal(cents)) : centsToDecimal(cents));

  async function step(m: Model, op: Op, rand: () => number): Promise<string> {
    const orderUrl = `${BASE}/orders/${m.orderId}`;
    if (op === 'pay') {
      const res = await app.as(admin).post(`${orderUrl}/mark-as-paid`).send({});
      if (m.paymentStatus !== 'pending' && m.paymentStatus !== 'partially-paid') {
        expect([res.status, res.body]).toEqual([423, { message: 'Order has already been paid' }]);
        return 'pay refused';
      }
      expect([res.status, res.body]).toEqual([200, { message: 'Order has been marked as paid' }]);
      const due = m.total - paidOf(m);
      const newest = await db()('store_order_transactions').where({ order_id: m.orderId, transaction_type: 'charge' }).orderBy('id', 'desc').first();
      expect(Number(newest.total)).toBe(due);
      m.charges.push({ id: Number(newest.id), total: due, refunded: 0 });
      m.paymentStatus = 'paid';
      return `pay ${due}`;
    }
    const charge = m.charges.length ? m.charges[Math.floor(rand() * m.charges.length)] : undefined;
    const left = charge ? charge.total - charge.refunded : 0;
    const refundable = m.paymentStatus !== 'pending' && m.paymentStatus !== 'refunded' && left > 0;
    const amount = op === 'full' || left <= 1 ? left : op === 'over' ? left + 1 + Math.floor(rand() * 1000) : 1 + Math.floor(rand() * (left - 1));
    const res = await app
      .as(admin)
      .post(`${orderUrl}/refund`)
      .send({ refund_info: { transaction_id: charge?.id ?? 999999999, amount: amountOf(Math.max(amount, 1), rand) } });
    if (!refundable || !charge) {
      expect([res.status, res.body]).toEqual([400, { message: 'Order can not be refunded' }]);
      return `${op} refused`;
    }
    if (op === 'over') {
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(`The refund amount can not be more than ${centsToDecimal(left)}, what is left to refund of this transaction.`);
      return `over ${amount} refused`;
    }
    expect(res.status).toBe(200);
    expect(res.body.fluent_cart_refund.status).toBe('success');
    charge.refunded += amount;
    m.paymentStatus = expectedPaymentStatus(m);
    return `${op} ${amount}`;
  }

  /** The stored order agrees with the sum of its transactions, with the model, and never goes negative. */
  async function checkInvariant(m: Model, trail: string[]): Promise<void> {
    const order = await db()('store_orders').where({ id: m.orderId }).first();
    const ledger = await ledgerOf(db(), m.orderId);
    const stored = { paid: Number(order.total_paid), refunded: Number(order.total_refund), status: order.payment_status };
    const context = trail.join(' → ');
    expect({ context, ...stored }).toEqual({ context, paid: ledger.paid, refunded: ledger.refunded, status: m.paymentStatus });
    expect({ context, paid: stored.paid, refunded: stored.refunded }).toEqual({ context, paid: paidOf(m), refunded: refundedOf(m) });
    expect(stored.paid - stored.refunded).toBeGreaterThanOrEqual(0);
    const refundRows = await db()('store_order_transactions').where({ order_id: m.orderId, transaction_type: 'refund' });
    expect(refundRows.every((r) => Number(r.total) > 0 && r.status === 'refunded')).toBe(true);
  }

  it(`${SEQUENCES} seeded sequences of ${STEPS} steps keep total_paid - total_refund equal to the transactions and never negative`, async () => {
    const models: Model[] = [];
    const outcomes: string[] = [];
    for (let seed = 1; seed <= SEQUENCES; seed++) {
      const rand = prng(seed);
      const m = await newOrder(rand);
      models.push(m);
      const trail = [`seed ${seed}, total ${m.total}${m.charges.length ? `, upfront ${m.charges[0].total}` : ''}`];
      for (let i = 0; i < STEPS; i++) {
        const op = OPS[Math.floor(rand() * OPS.length)];
        const outcome = await step(m, op, rand);
        trail.push(outcome);
        outcomes.push(outcome.replace(/ \d+/, ''));
        await checkInvariant(m, trail);
      }
    }
    const customer = await db()('store_customers').where({ id: customerId }).first();
    const purchases = models.filter((m) => m.paymentStatus !== 'pending');
    expect(Number(customer.ltv)).toBe(purchases.reduce((s, m) => s + paidOf(m) - refundedOf(m), 0));
    expect(Number(customer.purchase_count)).toBe(purchases.length);
    const seen = (kind: string) => outcomes.filter((o) => o === kind).length;
    for (const kind of ['pay', 'partial', 'full', 'over refused', 'pay refused', 'partial refused']) expect([kind, seen(kind) >= 3]).toEqual([kind, true]);
    const reached = new Set(models.map((m) => m.paymentStatus));
    expect([...reached].sort()).toEqual(expect.arrayContaining(['paid', 'partially-refunded', 'refunded']));
  });
});
