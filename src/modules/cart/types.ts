/** A cart's life: shopping (`draft`), checked out and waiting for payment (`intended`), paid or placed offline (`completed`). */
export type CartStage = 'draft' | 'intended' | 'completed';

export interface CartItem {
  variation_id: number;
  quantity: number;
}

/** What is in the cart: lines by variation, and the coupon codes applied to it. */
export interface CartData {
  items: CartItem[];
  coupons: string[];
}

/** What the shopper chose on the checkout page so far (saved addresses, shipping method). */
export interface CheckoutData {
  billing_address_id?: number;
  shipping_address_id?: number;
  shipping_method_id?: number;
}

export interface Cart {
  id: number;
  cart_hash: string;
  user_id: number | null;
  customer_id: number | null;
  order_id: number | null;
  stage: CartStage;
  data: CartData;
  checkout: CheckoutData;
  expires_at: string;
  created_at: string;
  updated_at: string;
}
