/** What the cart tells a shopper when a line or a coupon cannot be bought; one wording for the cart API and checkout. */

export const GONE = 'A product in your cart is no longer available.';
export const UNKNOWN_VARIATION = 'The selected variation id is invalid.';

export const insufficientStock = (label: string) => `Insufficient stock for ${label}.`;
export const notPurchasable = (label: string) => `${label} is not available for purchase.`;
export const unknownCoupon = (code: string) => `Coupon "${code}" does not exist.`;
