import type { Ctx } from '../../core/context';
import { throwIfAny, AppError, invalid, type FieldErrors } from '../../core/errors';
import { allocate } from '../../core/money';
import { chargeFor, isOffered, physicalTotals } from '../shipping/calculator';
import { getMethod } from '../shipping/service';
import type { ShippingMethod } from '../shipping/types';
import { catalogVariations, otherInfoOf } from './write-lines';
import type { CalculateShippingBody } from './write-schemas';

export interface ShippingChargeItem {
  id: number;
  quantity: number;
  /** Cents: this line's share of the method's charge. */
  shipping_charge: number;
  unit_price: number;
  other_info: Record<string, unknown>;
  discount_total: number;
  fulfillment_type: 'physical' | 'digital';
}

export interface ShippingChargeResult {
  message: string;
  shipping_charge: number;
  order_items: Record<string, ShippingChargeItem>;
}

async function methodOf(ctx: Ctx, id: number): Promise<ShippingMethod> {
  try {
    return await getMethod(ctx, id);
  } catch (error) {
    if (error instanceof AppError && error.status === 404) throw invalid('shipping_id', 'exists', 'The selected shipping id is invalid.');
    throw error;
  }
}

/**
 * `POST /orders/calculate-shipping`: what a shipping method charges for the given variations (the shipping
 * calculator's rules: `flat_rate` once, `per_item` per physical unit, `free` 0 and only from its threshold; nothing
 * when no line is physical). The charge is split over the physical lines by quantity, so the lines add up to it.
 */
export async function calculateShippingCharge(ctx: Ctx, body: CalculateShippingBody): Promise<ShippingChargeResult> {
  const errors: FieldErrors = {};
  const seen = new Set<number>();
  body.order_items.forEach((item, i) => {
    if (seen.has(item.id)) errors[`order_items.${i}.id`] = { distinct: 'The id field has a duplicate value.' };
    seen.add(item.id);
  });
  const catalog = await catalogVariations(
    ctx.db,
    body.order_items.map((item) => item.id),
  );
  body.order_items.forEach((item, i) => {
    if (!catalog.has(item.id)) errors[`order_items.${i}.id`] ??= { exists: 'The selected id is invalid.' };
  });
  throwIfAny(errors);

  const method = await methodOf(ctx, body.shipping_id);
  const lines = body.order_items.map((item) => {
    const variation = catalog.get(item.id)!;
    return { item, variation, shipping: { quantity: item.quantity, unit_price: variation.price, fulfillment_type: variation.fulfillment_type } };
  });
  const totals = physicalTotals(lines.map((line) => line.shipping));
  if (totals.quantity > 0 && !isOffered(method, totals)) {
    throw invalid('shipping_id', 'available', 'The selected shipping method is not available for these items.');
  }
  const charge = totals.quantity > 0 ? chargeFor(method, totals) : 0;
  const shares = allocate(
    charge,
    lines.map((line) => (line.variation.fulfillment_type === 'physical' ? line.item.quantity : 0)),
  );

  const order_items: Record<string, ShippingChargeItem> = {};
  lines.forEach(({ item, variation }, i) => {
    order_items[String(item.id)] = {
      id: item.id,
      quantity: item.quantity,
      shipping_charge: shares[i],
      unit_price: variation.price,
      other_info: otherInfoOf(variation),
      discount_total: 0,
      fulfillment_type: variation.fulfillment_type,
    };
  });
  return { message: 'Shipping updated', shipping_charge: charge, order_items };
}
