/**
 * `POST /checkout/place-order` (reference §3): the cart becomes an order in one transaction, then the payment starts
 * with the chosen gateway.
 *
 * 1. A cart whose order is paid answers 'You have already completed this order.' (HTTP 200), also once the payment
 *    completed the cart; otherwise the cart must have items and not be completed (else HTTP 200 'Cart is empty or
 *    already completed').
 * 2. The form is checked against the store settings and the cart (`form.ts`); a guest asking for an account whose
 *    email already has one is asked to log in.
 * 3. One transaction: the cart row locked, the customer (`customer.ts`), the cart priced (`priceCart`: a product
 *    gone, not for sale or out of stock is 422 `{message}`), the order written, or the cart's unpaid order rewritten
 *    (`order-write.ts`), its stock held and coupon uses counted last (the contended rows, locked until the commit),
 *    and a free order paid / an offline order's cart completed (`payment.ts`). A cart with a subscription line (one
 *    at most: a second is 422 `{message}`) needs a gateway that bills subscriptions (else 422 on `payment_method`):
 *    the `pending` subscription is written with the order (`subscriptions/checkout.ts`).
 * 4. After the commit: the guest's account (`account.ts`), then an online gateway's `startPayment`, or its
 *    `startSubscription` for a subscription (also after a free first charge: a trial bills later).
 */
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { isLockConflict, isUniqueViolation, lockForUpdate } from '../../core/db';
import { AppError, fail, invalid, type FieldErrors } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { Reply } from '../../core/routes';
import type { PaymentGateway } from '../../gateways/gateway';
import { paymentGateways } from '../../gateways/registry';
import { currentCart } from '../cart/current';
import { priceCart, type PricedCart } from '../cart/pricing';
import { findCartById } from '../cart/repo';
import type { Cart } from '../cart/types';
import type { OrderRow } from '../order-records/presenter';
import { SETTLED_PAYMENT_STATUSES } from '../orders/state';
import { catalogVariations } from '../orders/write-lines';
import { getPaymentSettings } from '../settings/payment-settings';
import type { StoreMode } from '../settings/types';
import { getStoreSettings } from '../settings/store-settings';
import { accountProblem, createCheckoutAccount } from './account';
import { ownCustomerId, rememberAddresses, resolveCustomer, savedAddresses, type CheckoutCustomer } from './customer';
import { readCheckoutForm, type CheckoutForm } from './form';
import { writeOrder, type WrittenOrder } from './order-write';
import { createCheckoutSubscription, requireSubscriptionGateway, subscriptionLineOf } from '../subscriptions/checkout';
import type { Subscription } from '../subscriptions/types';
import { FREE_METHOD, pathOf, placedAnswer, settleAtCheckout, startOnlinePayment, startTrialBilling, type CheckoutAnswer, type PaymentPath } from './payment';
import type { PlaceOrderBody } from './schemas';

export interface PlaceOrderInput {
  body: PlaceOrderBody;
  cartHash: string | undefined;
  /** The `Referer` header: the page the order was placed from. */
  referer: string;
}

const emptyCart = () => new Reply({ status: 'failed', message: 'Cart is empty or already completed' }, 200);
const alreadyPaid = () => new Reply({ status: 'failed', message: 'You have already completed this order.' }, 200);

const isSettled = (status: unknown) => (SETTLED_PAYMENT_STATUSES as readonly unknown[]).includes(status);
const isEmpty = (cart: Cart) => cart.stage === 'completed' || !cart.data.items.length;

/** How many times a checkout runs when it lost a race it can win on a second run. */
const ATTEMPTS = 3;

function throwIfAny(errors: FieldErrors): void {
  const first = Object.values(errors)[0];
  if (first) throw fail('validation_error', Object.values(first)[0], { errors });
}

/** A product the cart cannot buy (gone, not for sale, not enough stock): the spec's 422 `{message}`. */
function asUnavailable(error: unknown): unknown {
  return error instanceof AppError && error.code === 'invalid_state' && error.status === 422 ? fail('product_unavailable', error.message) : error;
}

/** A deadlock, or a new customer record that lost the race for its email or user: running the checkout again settles it. */
function isRetryable(error: unknown): boolean {
  return isLockConflict(error) || (isUniqueViolation(error) && String((error as { message?: unknown }).message).includes('store_customers'));
}

interface Chosen {
  gateway: PaymentGateway | undefined;
  available: boolean;
  title: string;
}

/** The gateway the form names, whether shoppers may use it now, and its title as the store shows it. */
async function chooseGateway(ctx: Ctx, method: string): Promise<Chosen> {
  const gateway = paymentGateways(ctx).get(method);
  const available = gateway?.availableAtCheckout ? await gateway.availableAtCheckout(ctx) : false;
  const titles = (await getPaymentSettings(ctx.host)).gateways as Partial<Record<string, { title: string }>>;
  return { gateway, available, title: titles[method]?.title || gateway?.title || method };
}

/** The cart's order, locked, when it may be placed again; 'paid' once paid; null when there is none to reuse. */
async function previousOrder(trx: Knex.Transaction, cart: Cart): Promise<OrderRow | 'paid' | null> {
  if (cart.order_id === null) return null;
  const row = (await lockForUpdate(trx('store_orders').where({ id: cart.order_id }), trx).first()) as OrderRow | undefined;
  if (!row) return null;
  if (isSettled(row.payment_status)) return 'paid';
  return row.status === 'canceled' ? null : row;
}

interface Placed {
  written: WrittenOrder;
  customer: CheckoutCustomer;
  priced: PricedCart;
  path: PaymentPath;
  subscription: Subscription | null;
}

async function placeInTransaction(ctx: Ctx, cartId: number, form: CheckoutForm, chosen: Chosen, mode: StoreMode, referer: string): Promise<Placed | Reply> {
  return transaction(ctx, async (trx, afterCommit) => {
    const cart = await findCartById(trx, cartId, true);
    if (!cart) return emptyCart();
    const previous = await previousOrder(trx, cart);
    if (previous === 'paid') return alreadyPaid();
    if (isEmpty(cart)) return emptyCart();

    const customer = await resolveCustomer(trx, ctx, form, afterCommit);
    const destination = form.shipping ?? form.billing;
    let priced: PricedCart;
    try {
      // Everything the pricing reads goes through the transaction (SQLite: it holds the only connection).
      priced = await priceCart({ ...ctx, db: trx }, trx, cart, {
        shipping_method_id: form.shipping_method_id,
        country: destination.country,
        state: destination.state,
        customer: customer.record,
        addresses: [{ type: 'billing', ...form.billing }, ...(form.shipping ? [{ type: 'shipping', ...form.shipping }] : [])],
      });
    } catch (error) {
      throw asUnavailable(error);
    }
    const line = subscriptionLineOf(priced);

    // A zero total is paid at once, whatever method the form names; a subscription's gateway bills it later all the same.
    const free = priced.totals.total_amount === 0;
    const byGateway = !free || line !== null;
    if (byGateway && !(chosen.gateway && chosen.available)) throw invalid('payment_method', 'in', 'The selected payment method is not available.');
    if (line) requireSubscriptionGateway(chosen.gateway);
    const gateway = byGateway ? (chosen.gateway as PaymentGateway) : (paymentGateways(ctx).get(FREE_METHOD) as PaymentGateway);
    const method = { key: gateway.key, title: byGateway ? chosen.title : gateway.title };
    await rememberAddresses(trx, customer, form, toTimestamp(ctx.clock.now()));
    let written: WrittenOrder;
    try {
      // The stock hold is the last word on stock: the pricing read it without a lock, so a parallel checkout may have
      // taken the last unit since; the hold's conditional update refuses then (422, naming product and variation).
      written = await writeOrder(trx, ctx, { cart, form, priced, customer, method, mode, referer, previous }, afterCommit);
    } catch (error) {
      throw asUnavailable(error);
    }
    const subscription = await createCheckoutSubscription(ctx, trx, afterCommit, {
      order: written.order,
      charge_id: written.charge.id,
      line,
      payment_method: method.key,
    });
    const path: PaymentPath = free ? 'free' : line ? 'online' : pathOf(method.key, gateway);
    await settleAtCheckout(trx, ctx, afterCommit, path, written);
    return { written, customer, priced, path, subscription };
  });
}

/** The cart's earlier, unpaid order and the host user its customer is linked to (a retry after that order made the account). */
async function previousAccount(ctx: Ctx, cart: Cart): Promise<{ paid: boolean; userId: number | null }> {
  if (cart.order_id === null) return { paid: false, userId: null };
  const row = (await ctx
    .db('store_orders as o')
    .leftJoin('store_customers as c', 'c.id', 'o.customer_id')
    .where('o.id', cart.order_id)
    .first('o.payment_status', 'c.user_id')) as { payment_status: string; user_id: number | string | null } | undefined;
  return { paid: isSettled(row?.payment_status), userId: row?.user_id == null ? null : Number(row.user_id) };
}

async function attempt(ctx: Ctx, input: PlaceOrderInput): Promise<CheckoutAnswer | Reply> {
  const cart = await currentCart(ctx, input.cartHash);
  if (!cart) return emptyCart();
  const earlier = await previousAccount(ctx, cart);
  if (earlier.paid) return alreadyPaid();
  if (isEmpty(cart)) return emptyCart();
  const catalog = [
    ...(
      await catalogVariations(
        ctx.db,
        cart.data.items.map((item) => item.variation_id),
      )
    ).values(),
  ];

  const [settings, payments] = await Promise.all([getStoreSettings(ctx.host), getPaymentSettings(ctx.host)]);
  const ownId = await ownCustomerId(ctx.db, ctx);
  const saved = await savedAddresses(ctx.db, ownId, [input.body.billing_address_id, input.body.shipping_address_id]);
  const physical = catalog.some((variation) => variation.fulfillment_type === 'physical');
  const { form, errors } = await readCheckoutForm(input.body, { settings, user: ctx.user, saved, physical });
  if (form.create_account && !errors.billing_email) {
    const existing = await accountProblem(ctx, form, earlier.userId);
    if (existing === 'made') form.create_account = false;
    else if (existing) Object.assign(errors, existing.details.errors);
  }
  throwIfAny(errors);

  const chosen = await chooseGateway(ctx, form.payment_method);
  const placed = await placeInTransaction(ctx, cart.id, form, chosen, payments.mode, input.referer);
  if (placed instanceof Reply) return placed;
  if (form.create_account) await createCheckoutAccount(ctx, placed.customer, form);
  const { written, priced, subscription } = placed;
  const customerId = placed.customer.record.id;
  if (subscription && placed.path === 'free') return startTrialBilling(ctx, chosen.gateway as PaymentGateway, written, form, priced, customerId, subscription);
  if (placed.path !== 'online') return placedAnswer(ctx, written.order);
  return startOnlinePayment(ctx, chosen.gateway as PaymentGateway, written, form, priced, customerId, subscription);
}

export async function placeOrder(ctx: Ctx, input: PlaceOrderInput): Promise<CheckoutAnswer | Reply> {
  for (let run = 1; ; run++) {
    try {
      return await attempt(ctx, input);
    } catch (error) {
      if (run >= ATTEMPTS || !isRetryable(error)) throw error;
    }
  }
}
