import type { Ctx } from '../core/context';

/** What a gateway call did: `success`, `failed` (the message says why), or `skipped` (nothing to do there). */
export interface GatewayResult {
  status: 'success' | 'failed' | 'skipped';
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
}

/**
 * A payment method (DESIGN §6). Offline methods record only; online ones (Stripe, PayPal, added with checkout) call
 * their vendor. Amounts are integer cents.
 */
export interface PaymentGateway {
  key: string;
  title: string;
  capabilities: { refund: boolean; capture: boolean };
  /**
   * Gives `amount` cents of a charge back to the payer. Answer `failed` when the vendor refused (nothing was refunded);
   * throw only when the outcome is unknown (timeout, lost connection): the store then keeps the refund pending.
   */
  refund(ctx: Ctx, transaction: GatewayTransaction, amount: number): Promise<GatewayResult>;
  /** Captures an authorised charge in full. */
  capture(ctx: Ctx, transaction: GatewayTransaction): Promise<GatewayResult>;
}
