import type { Knex } from 'knex';
import type { Ctx } from '../core/context';
import type { AfterCommit } from '../core/db';

/**
 * What a gateway call did: `success`, `failed` (the message says why), `skipped` (nothing to do there), or `pending`
 * (a refund the vendor accepted but has not completed: it stays pending until the vendor's notification or the
 * reconcile job settles it).
 */
export interface GatewayResult {
  status: 'success' | 'failed' | 'skipped' | 'pending';
  message: string;
  /** The gateway's id of what it did (refund id, capture id), when it did something. */
  vendor_id?: string;
}

/** The transaction a gateway acts on (a `store_order_transactions` row, amounts in cents). */
export interface GatewayTransaction {
  id: number;
  order_id: number;
  vendor_charge_id: string;
  payment_method: string;
  payment_mode: string;
  currency: string;
  total: number;
  status: string;
  /** The row's own uuid, when the gateway can echo it back (Stripe refund metadata) to find the row again. */
  uuid?: string;
}

/** What a gateway says of a refund it was asked for earlier (the reconcile job asks when no notification came). */
export interface RefundLookup {
  status: 'succeeded' | 'failed' | 'pending';
  /** The gateway's refund id, when it has one. */
  vendor_id?: string;
}

/** What a checkout asks a gateway to collect: the order just placed and its pending charge. Amounts in minor units. */
export interface PaymentRequest {
  order: { id: number; uuid: string; currency: string; total_amount: number; mode: string };
  /** The pending charge row the payment will settle. */
  transaction: { id: number; uuid: string; total: number };
  customer: { id: number; email: string; name: string };
  items: Array<{ title: string; quantity: number; unit_price: number; line_total: number }>;
  /** Where the shopper lands after paying (the receipt) and after giving up (back to checkout); `return_url` is the gateway's own return route. */
  urls: { success_url: string; cancel_url: string; return_url: string };
}

/**
 * How the payment continues: the shopper is sent to the gateway (`redirect`), pays on the checkout page with a
 * client secret (`onsite`), or pays outside the store later (`offline`). `vendor_charge_id` is the gateway's id of
 * the payment (PaymentIntent, Checkout Session, PayPal order), stored on the pending charge.
 */
export type PaymentStart =
  | { kind: 'redirect'; redirect_url: string; vendor_charge_id?: string }
  | { kind: 'onsite'; client_secret: string; vendor_charge_id: string }
  | { kind: 'offline' };

/** A gateway notification as it arrived: the exact bytes (signatures cover them) and the headers. */
export interface WebhookDelivery {
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

/** A notification whose signature checked out: its id (the idempotency key), type and payload. */
export interface VerifiedEvent {
  id: string;
  type: string;
  data: unknown;
}

/** Thrown by `verifyWebhook` for a forged, tampered, stale or unreadable notification: answered 400, nothing recorded. */
export class WebhookRejected extends Error {}

/** `GET /checkout/get-order-info?method=<key>`: what the checkout page needs to start this gateway's payment. */
export interface OrderInfo {
  status: string;
  message: string;
  data: unknown;
  payment_args: Record<string, unknown>;
}

/**
 * A payment method (DESIGN §6). Offline methods record only; online ones (Stripe, PayPal) call their vendor. Amounts
 * are integer minor units. Every gateway stays registered whatever its `enabled` setting, so refunds, captures and
 * webhooks of past payments always reach it; `availableAtCheckout` alone decides whether shoppers may choose it.
 * The checkout methods are optional so extension gateways written for refunds only keep compiling.
 */
export interface PaymentGateway {
  key: string;
  title: string;
  capabilities: {
    refund: boolean;
    capture: boolean;
    webhooks?: boolean;
    /** Bills subscriptions itself (creates them at checkout, renews through webhooks, cancels, fetches). */
    subscriptions?: boolean;
    /** Can look a subscription up by its vendor ids (`verify-vendor-ids`). */
    verify_vendor_ids?: boolean;
  };
  /** Whether shoppers may pick it at checkout now (enabled, keys set); absent: never a checkout method. */
  availableAtCheckout?(ctx: Ctx): Promise<boolean>;
  /** Starts collecting the payment of a placed order; throws when the gateway did not answer or refused. */
  startPayment?(ctx: Ctx, request: PaymentRequest): Promise<PaymentStart>;
  getOrderInfo?(ctx: Ctx): Promise<OrderInfo>;
  /** Checks a notification's signature (throws `WebhookRejected`); runs before anything is written. */
  verifyWebhook?(ctx: Ctx, delivery: WebhookDelivery): Promise<VerifiedEvent>;
  /**
   * Applies a verified notification inside the caller's transaction, which also records the event id, so a
   * notification delivered twice (or twice at once) is applied once. Returns what it did, for the event log.
   */
  applyWebhook?(ctx: Ctx, trx: Knex.Transaction, afterCommit: AfterCommit, event: VerifiedEvent): Promise<string>;
  /**
   * Gives `amount` cents of a charge back to the payer. Answer `failed` when the vendor refused (nothing was refunded),
   * `pending` when it accepted but has not completed; throw only when the outcome is unknown (timeout, lost
   * connection): the store then keeps the refund pending. `refund` is the store's pending refund row: its uuid makes
   * the call idempotent at the vendor and lets the vendor's notifications name the row.
   */
  refund(ctx: Ctx, transaction: GatewayTransaction, amount: number, refund?: { id: number; uuid: string }): Promise<GatewayResult>;
  /**
   * What became of a refund still `pending` in the store (its `vendor_charge_id` is the gateway's refund id, or '' when
   * the refund call never answered), given the charge it gives money back from. Throws when the gateway cannot be
   * asked now; the reconcile job tries again later.
   */
  lookupRefund?(ctx: Ctx, refund: GatewayTransaction, charge: GatewayTransaction): Promise<RefundLookup>;
  /** Captures an authorised charge in full. */
  capture(ctx: Ctx, transaction: GatewayTransaction): Promise<GatewayResult>;
  /**
   * Starts a subscription's billing at the gateway for a placed order whose cart holds a subscription item (the first
   * payment included); like `startPayment` it answers how the shopper continues, and the gateway's subscription id.
   */
  startSubscription?(ctx: Ctx, request: SubscriptionStartRequest): Promise<SubscriptionStart>;
  /** Ends the subscription at the gateway now; answers `failed` with the vendor's message when it refused, throws when unknown. */
  cancelSubscription?(ctx: Ctx, subscription: GatewaySubscription): Promise<GatewayResult>;
  /** The subscription as the gateway has it now (`fetch`): status and dates to copy onto the local record. */
  fetchSubscription?(ctx: Ctx, subscription: GatewaySubscription): Promise<RemoteSubscription>;
  /** Finds a subscription by vendor ids without writing anything (`verify-vendor-ids`); null when there is none. */
  lookupSubscription?(ctx: Ctx, ids: { vendor_subscription_id: string; vendor_customer_id: string; mode: string }): Promise<RemoteSubscription | null>;
}

/** A local subscription as a gateway needs it. Amounts in minor units. */
export interface GatewaySubscription {
  id: number;
  uuid: string;
  status: string;
  vendor_subscription_id: string;
  vendor_customer_id: string;
  vendor_plan_id: string;
  billing_interval: string;
  recurring_amount: number;
  currency: string;
  bill_times: number;
  bill_count: number;
  mode: string;
}

/** What the gateway says of a subscription. `status` uses the store's values (active, trialing, failing, canceled, expired …). */
export interface RemoteSubscription {
  id: string;
  status: string;
  customer_id: string;
  plan_id: string;
  amount: number;
  currency: string;
  next_billing_date: string | null;
  canceled_at: string | null;
}

export interface SubscriptionStartRequest extends PaymentRequest {
  subscription: GatewaySubscription & { trial_days: number; signup_fee: number; item_name: string };
}

export type SubscriptionStart = PaymentStart & { vendor_subscription_id: string; vendor_customer_id?: string; vendor_plan_id?: string };
