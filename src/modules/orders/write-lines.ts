import type { Knex } from 'knex';
import { parseJson } from '../../core/db';
import type { FieldErrors } from '../../core/errors';
import type { PricedLine } from './totals';
import type { OrderItemInput } from './write-schemas';

type Db = Knex | Knex.Transaction;
type Num = number | string;

/** A variation with what an order copies of it and its product. */
export interface CatalogVariation {
  id: number;
  product_id: number;
  product_title: string;
  title: string;
  sku: string | null;
  /** Cents. */
  price: number;
  cost: number;
  fulfillment_type: 'physical' | 'digital';
  payment_type: string;
  billing_interval: string | null;
  trial_days: number;
  bill_times: number;
  signup_fee: number;
  tax_class: string | null;
}

interface CatalogRow {
  id: Num;
  product_id: Num;
  product_title: string;
  title: string;
  sku: string | null;
  price: Num;
  cost: Num | null;
  fulfillment_type: string;
  payment_type: string;
  billing_interval: string | null;
  trial_days: Num;
  bill_times: Num;
  signup_fee: Num;
  tax_class: string | null;
}

/** Variations by id with their product's title and fulfilment, in one query. */
export async function catalogVariations(db: Db, ids: number[]): Promise<Map<number, CatalogVariation>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows = (await db('store_product_variations as v')
    .join('store_products as p', 'p.id', 'v.product_id')
    .whereIn('v.id', unique)
    .select(
      'v.id',
      'v.product_id',
      'p.title as product_title',
      'p.fulfillment_type',
      'v.title',
      'v.sku',
      'v.price',
      'v.cost',
      'v.payment_type',
      'v.billing_interval',
      'v.trial_days',
      'v.bill_times',
      'v.signup_fee',
      'v.tax_class',
    )) as CatalogRow[];
  return new Map(
    rows.map((row) => [
      Number(row.id),
      {
        id: Number(row.id),
        product_id: Number(row.product_id),
        product_title: row.product_title,
        title: row.title,
        sku: row.sku ?? null,
        price: Number(row.price),
        cost: Number(row.cost ?? 0),
        fulfillment_type: row.fulfillment_type === 'digital' ? 'digital' : 'physical',
        payment_type: row.payment_type,
        billing_interval: row.billing_interval ?? null,
        trial_days: Number(row.trial_days),
        bill_times: Number(row.bill_times),
        signup_fee: Number(row.signup_fee),
        tax_class: row.tax_class ?? null,
      },
    ]),
  );
}

/** What an order item keeps in `other_info` of its variation (subscription terms for subscription variations). */
export function otherInfoOf(variation: CatalogVariation): Record<string, unknown> {
  const info: Record<string, unknown> = { sku: variation.sku, payment_type: variation.payment_type };
  if (variation.payment_type === 'subscription') {
    Object.assign(info, {
      billing_interval: variation.billing_interval,
      trial_days: variation.trial_days,
      bill_times: variation.bill_times,
      signup_fee: variation.signup_fee,
    });
  }
  return info;
}

/** A stored `store_order_items` row. */
export type StoredItem = Record<string, unknown> & { id: Num; variation_id: Num | null; post_id: Num | null };

/** One line of the order being written: the copies the order keeps of its product and variation, and its price. */
export interface LineDraft {
  /** The stored item this line replaces or keeps; null for a new line. */
  itemId: number | null;
  product_id: number | null;
  variation_id: number | null;
  post_title: string;
  title: string;
  fulfillment_type: 'physical' | 'digital';
  payment_type: string;
  /** Cents. */
  unit_price: number;
  item_cost: number;
  quantity: number;
  refund_total: number;
  other_info: Record<string, unknown>;
  line_meta: Record<string, unknown>;
  /** From the variation, for the tax module; null when the variation no longer exists. */
  tax_class: string | null;
}

const numOrNull = (value: Num | null | undefined) => (value === null || value === undefined ? null : Number(value));

function fromVariation(variation: CatalogVariation, quantity: number, price: number | undefined): LineDraft {
  return {
    itemId: null,
    product_id: variation.product_id,
    variation_id: variation.id,
    post_title: variation.product_title,
    title: variation.title,
    fulfillment_type: variation.fulfillment_type,
    payment_type: variation.payment_type,
    unit_price: price ?? variation.price,
    item_cost: variation.cost,
    quantity,
    refund_total: 0,
    other_info: otherInfoOf(variation),
    line_meta: {},
    tax_class: variation.tax_class,
  };
}

/** A stored item as a line: its own copies of titles and prices, whatever happened to the product since. */
function fromStored(row: StoredItem, catalog: Map<number, CatalogVariation>): LineDraft {
  const variationId = numOrNull(row.variation_id);
  return {
    itemId: Number(row.id),
    product_id: numOrNull(row.post_id),
    variation_id: variationId,
    post_title: String(row.post_title ?? ''),
    title: String(row.title ?? ''),
    fulfillment_type: row.fulfillment_type === 'digital' ? 'digital' : 'physical',
    payment_type: String(row.payment_type ?? 'onetime'),
    unit_price: Number(row.unit_price ?? 0),
    item_cost: Number(row.item_cost ?? 0),
    quantity: Number(row.quantity ?? 1),
    refund_total: Number(row.refund_total ?? 0),
    other_info: parseJson<Record<string, unknown>>(row.other_info, {}),
    line_meta: parseJson<Record<string, unknown>>(row.line_meta, {}),
    tax_class: variationId === null ? null : (catalog.get(variationId)?.tax_class ?? null),
  };
}

interface Reference {
  /** The stored item replaced (update with both `id` and `variation_id`). */
  itemId: number | null;
  variationId: number | undefined;
  /** The body field that named the variation, for error messages. */
  field: 'variation_id' | 'id';
}

function referenceOf(item: OrderItemInput, updating: boolean): Reference {
  if (updating && item.variation_id !== undefined && item.id !== undefined) return { itemId: item.id, variationId: item.variation_id, field: 'variation_id' };
  if (item.variation_id !== undefined) return { itemId: null, variationId: item.variation_id, field: 'variation_id' };
  return { itemId: null, variationId: item.id, field: 'id' };
}

/**
 * The order's lines after a create (`stored` null) or an update. New lines copy titles, prices, fulfilment and payment
 * type from the variation. On update, an item sent with both `id` and `variation_id` replaces the stored item `id`
 * (it keeps its own copies unless the variation changed); stored items that are neither sent nor in `deleted` stay as
 * they are, in their place; new lines come last. Problems are returned as field errors, nothing is thrown.
 */
export async function resolveLines(
  db: Db,
  items: OrderItemInput[],
  stored: StoredItem[] | null,
  deleted: number[],
): Promise<{ lines: LineDraft[]; errors: FieldErrors }> {
  const errors: FieldErrors = {};
  const updating = stored !== null;
  const storedById = new Map((stored ?? []).map((row) => [Number(row.id), row]));
  const refs = items.map((item) => referenceOf(item, updating));
  const catalog = await catalogVariations(db, [
    ...refs.flatMap((ref) => (ref.variationId === undefined ? [] : [ref.variationId])),
    ...(stored ?? []).flatMap((row) => (row.variation_id === null ? [] : [Number(row.variation_id)])),
  ]);

  const replaced = new Map<number, LineDraft>();
  const added: LineDraft[] = [];
  items.forEach((item, i) => {
    const ref = refs[i];
    const at = `order_items.${i}`;
    if (ref.variationId === undefined) {
      errors[`${at}.variation_id`] = { required: 'The variation id field is required.' };
      return;
    }
    const price = item.unit_price ?? item.price;
    const storedRow = ref.itemId === null ? undefined : storedById.get(ref.itemId);
    if (ref.itemId !== null && !storedRow) {
      errors[`${at}.id`] = { exists: 'The selected item is not part of this order.' };
      return;
    }
    if (ref.itemId !== null && replaced.has(ref.itemId)) {
      errors[`${at}.id`] = { distinct: 'The id field has a duplicate value.' };
      return;
    }
    let line: LineDraft;
    if (storedRow && numOrNull(storedRow.variation_id) === ref.variationId) {
      const kept = fromStored(storedRow, catalog);
      line = { ...kept, quantity: item.quantity, unit_price: price ?? kept.unit_price };
    } else {
      const variation = catalog.get(ref.variationId);
      if (!variation) {
        errors[`${at}.${ref.field}`] = { exists: `The selected ${ref.field === 'id' ? 'id' : 'variation id'} is invalid.` };
        return;
      }
      line = { ...fromVariation(variation, item.quantity, price), itemId: ref.itemId };
    }
    if (ref.itemId === null) added.push(line);
    else replaced.set(ref.itemId, line);
  });

  const removing = new Set(deleted);
  if (deleted.some((id) => !storedById.has(id))) errors.deletedItems = { exists: 'The selected deleted items are not part of this order.' };
  else if (deleted.some((id) => replaced.has(id))) errors.deletedItems = { prohibited: 'An item cannot be both updated and deleted.' };

  const kept = (stored ?? []).filter((row) => !removing.has(Number(row.id))).map((row) => replaced.get(Number(row.id)) ?? fromStored(row, catalog));
  return { lines: [...kept, ...added], errors };
}

/** The `store_order_items` columns of a priced line. */
export function itemColumns(line: LineDraft, priced: PricedLine, orderId: number, rate: number, now: string): Record<string, unknown> {
  return {
    order_id: orderId,
    post_id: line.product_id,
    variation_id: line.variation_id,
    fulfillment_type: line.fulfillment_type,
    payment_type: line.payment_type,
    post_title: line.post_title,
    title: line.title,
    cart_index: priced.index,
    quantity: line.quantity,
    unit_price: line.unit_price,
    item_cost: line.item_cost,
    subtotal: priced.subtotal,
    tax_amount: priced.tax_amount,
    shipping_charge: priced.shipping_charge,
    discount_total: priced.discount_total,
    line_total: priced.line_total,
    refund_total: line.refund_total,
    rate,
    other_info: JSON.stringify(line.other_info),
    line_meta: JSON.stringify(line.line_meta),
    updated_at: now,
  };
}
