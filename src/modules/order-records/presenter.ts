/**
 * Order rows as the API shows them. A read model shared by the orders module and the customers module (whose answers
 * embed a customer's orders), so that imports between the two run one way: orders → customers, both → here.
 */
import { parseJson } from '../../core/db';
import { formatFullAddress } from '../../core/address';

type Num = number | string;

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const object = (v: unknown): Record<string, unknown> => {
  const parsed = parseJson<unknown>(v, {});
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
};

const ORDER_MONEY = [
  'subtotal',
  'discount_tax',
  'manual_discount_total',
  'coupon_discount_total',
  'shipping_tax',
  'shipping_total',
  'fee_total',
  'tax_total',
  'total_amount',
  'total_paid',
  'total_refund',
] as const;

export type OrderRow = Record<string, unknown> & { id: Num; customer_id: Num | null; parent_id: Num | null; receipt_number: Num | null };

/** An order as the customer routes show it (the spec's Order fields). */
export function presentOrder(row: OrderRow) {
  const money = Object.fromEntries(ORDER_MONEY.map((k) => [k, Number(row[k] ?? 0)])) as Record<(typeof ORDER_MONEY)[number], number>;
  return {
    id: Number(row.id),
    uuid: row.uuid as string,
    parent_id: row.parent_id === null ? null : Number(row.parent_id),
    customer_id: row.customer_id === null ? null : Number(row.customer_id),
    receipt_number: row.receipt_number === null ? null : Number(row.receipt_number),
    invoice_no: row.invoice_no as string,
    status: row.status as string,
    payment_status: row.payment_status as string,
    shipping_status: row.shipping_status as string,
    payment_method: row.payment_method as string,
    payment_method_title: row.payment_method_title as string,
    type: row.type as string,
    fulfillment_type: row.fulfillment_type as string,
    mode: row.mode as string,
    currency: row.currency as string,
    ...money,
    rate: Number(row.rate),
    note: (row.note as string | null) ?? '',
    ip_address: row.ip_address as string,
    completed_at: row.completed_at as string | null,
    refunded_at: row.refunded_at as string | null,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}

/** The customer-facing order summary (spec: id, invoice_no, total_amount, uuid, type, status, created_at). */
export function presentOrderSummary(row: OrderRow) {
  return {
    id: Number(row.id),
    invoice_no: row.invoice_no as string,
    total_amount: Number(row.total_amount),
    uuid: row.uuid as string,
    type: row.type as string,
    status: row.status as string,
    created_at: row.created_at as string,
  };
}

const ITEM_MONEY = ['unit_price', 'item_cost', 'subtotal', 'tax_amount', 'shipping_charge', 'discount_total', 'line_total', 'refund_total'] as const;

export function presentOrderItem(row: Record<string, unknown>) {
  const money = Object.fromEntries(ITEM_MONEY.map((k) => [k, Number(row[k] ?? 0)])) as Record<(typeof ITEM_MONEY)[number], number>;
  return {
    id: Number(row.id),
    order_id: Number(row.order_id),
    post_id: num(row.post_id),
    variation_id: num(row.variation_id),
    object_id: num(row.variation_id),
    fulfillment_type: row.fulfillment_type as string,
    payment_type: row.payment_type as string,
    post_title: row.post_title as string,
    title: row.title as string,
    cart_index: Number(row.cart_index),
    quantity: Number(row.quantity),
    ...money,
    price: money.unit_price,
    item_total: money.subtotal,
    total: money.line_total,
    rate: Number(row.rate),
    other_info: parseJson<unknown>(row.other_info, {}),
    line_meta: parseJson<unknown>(row.line_meta, {}),
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}
export type Order = ReturnType<typeof presentOrder>;

/** A row of `store_order_transactions` (spec: a transaction shows `id`, `amount`, `status`, `created_at`; the rest per reference §2). */
export function presentTransaction(row: Record<string, unknown>) {
  const total = Number(row.total ?? 0);
  return {
    id: Number(row.id),
    uuid: text(row.uuid),
    order_id: Number(row.order_id),
    order_type: text(row.order_type),
    transaction_type: text(row.transaction_type),
    subscription_id: num(row.subscription_id),
    vendor_charge_id: text(row.vendor_charge_id),
    payment_method: text(row.payment_method),
    payment_mode: text(row.payment_mode),
    payment_method_type: text(row.payment_method_type),
    card_last_4: text(row.card_last_4),
    card_brand: text(row.card_brand),
    status: text(row.status),
    currency: text(row.currency),
    /** Cents; refunds are positive amounts on `refund` rows. */
    total,
    amount: total,
    rate: Number(row.rate ?? 1),
    meta: object(row.meta),
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}
export type Transaction = ReturnType<typeof presentTransaction>;

/** A row of `store_applied_coupons` (spec: the applied-coupon object); `discount` repeats `discounted_amount` (cents). */
export function presentAppliedCoupon(row: Record<string, unknown>) {
  const discounted = Number(row.discounted_amount ?? 0);
  return {
    id: Number(row.id),
    order_id: Number(row.order_id),
    coupon_id: num(row.coupon_id),
    customer_id: num(row.customer_id),
    code: text(row.code),
    type: text(row.type),
    amount: Number(row.amount ?? 0),
    discounted_amount: discounted,
    discount: discounted,
    stackable: Number(row.stackable) ? 1 : 0,
    priority: Number(row.priority ?? 0),
    max_uses: num(row.max_uses),
    use_count: Number(row.use_count ?? 0),
    max_per_customer: num(row.max_per_customer),
    min_purchase_amount: num(row.min_purchase_amount),
    max_discount_amount: num(row.max_discount_amount),
    notes: text(row.notes),
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}
export type AppliedCoupon = ReturnType<typeof presentAppliedCoupon>;

/** A row of `store_order_addresses`: the order's own copy of an address, with `formatted_address` like a customer address. */
export async function presentOrderAddress(row: Record<string, unknown>) {
  const fields = {
    country: text(row.country),
    state: text(row.state),
    city: text(row.city),
    postcode: text(row.postcode),
    address_1: text(row.address_1),
    address_2: text(row.address_2),
    name: text(row.name),
    company_name: text(row.company_name),
  };
  const type = text(row.type);
  return {
    id: Number(row.id),
    order_id: Number(row.order_id),
    type,
    ...fields,
    phone: text(row.phone),
    email: text(row.email),
    meta: object(row.meta),
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
    formatted_address: { ...fields, type, phone: text(row.phone), full_address: await formatFullAddress(fields) },
  };
}
export type OrderAddress = Awaited<ReturnType<typeof presentOrderAddress>>;

const UTM = ['utm_campaign', 'utm_term', 'utm_source', 'utm_medium', 'utm_content', 'utm_id'] as const;

/** A row of `store_order_operations`: how the order was made (`created_via`, cart hash) and its UTM parameters. */
export function presentOrderOperation(row: Record<string, unknown>) {
  return {
    id: Number(row.id),
    order_id: Number(row.order_id),
    created_via: text(row.created_via),
    cart_hash: text(row.cart_hash),
    ...(Object.fromEntries(UTM.map((k) => [k, text(row[k])])) as Record<(typeof UTM)[number], string>),
    refer_url: text(row.refer_url),
    meta: object(row.meta),
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}
export type OrderOperation = ReturnType<typeof presentOrderOperation>;
