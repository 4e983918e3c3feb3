import type { Knex } from 'knex';
import type { BillingInterval, Category, FulfillmentType, PaymentType, Product, ProductStatus, Variation, VariationStatus } from './types';

type Num = number | string;

/** Rows as the database returns them: MySQL may hand back BIGINT/DECIMAL as strings, so every number is `Number()`ed. */
export interface ProductRow {
  id: Num;
  title: string;
  slug: string;
  status: ProductStatus;
  description: string | null;
  fulfillment_type: FulfillmentType;
  created_at: string;
  updated_at: string;
}

export interface VariationRow {
  id: Num;
  product_id: Num;
  title: string;
  sku: string | null;
  price: Num;
  compare_price: Num | null;
  cost: Num | null;
  manage_stock: Num;
  stock_quantity: Num;
  stock_on_hold: Num;
  payment_type: PaymentType;
  billing_interval: BillingInterval | null;
  trial_days: Num;
  bill_times: Num;
  signup_fee: Num;
  tax_class: string | null;
  shipping_class: string | null;
  position: Num;
  status: VariationStatus;
  created_at: string;
  updated_at: string;
}

export interface CategoryRow {
  id: Num;
  name: string;
  slug: string;
  parent_id: Num | null;
  created_at: string;
  updated_at: string;
}

const numberOrNull = (value: Num | null | undefined): number | null => (value === null || value === undefined ? null : Number(value));

export function presentVariation(row: VariationRow): Variation {
  const managed = Number(row.manage_stock) ? 1 : 0;
  const quantity = Number(row.stock_quantity);
  const onHold = Number(row.stock_on_hold);
  const available = managed ? quantity - onHold : null;
  return {
    id: Number(row.id),
    product_id: Number(row.product_id),
    title: row.title,
    sku: row.sku ?? null,
    price: Number(row.price),
    compare_price: numberOrNull(row.compare_price),
    cost: numberOrNull(row.cost),
    manage_stock: managed,
    stock_quantity: quantity,
    stock_on_hold: onHold,
    stock_available: available,
    stock_status: available === null || available > 0 ? 'in_stock' : 'out_of_stock',
    payment_type: row.payment_type,
    billing_interval: row.billing_interval ?? null,
    trial_days: Number(row.trial_days),
    bill_times: Number(row.bill_times),
    signup_fee: Number(row.signup_fee),
    tax_class: row.tax_class ?? null,
    shipping_class: row.shipping_class ?? null,
    position: Number(row.position),
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentCategory(row: CategoryRow): Category {
  return {
    id: Number(row.id),
    name: row.name,
    slug: row.slug,
    parent_id: numberOrNull(row.parent_id),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentProduct(row: ProductRow, variations: Variation[], categories: Product['categories']): Product {
  const active = variations.filter((v) => v.status === 'active');
  const prices = active.map((v) => v.price);
  return {
    id: Number(row.id),
    title: row.title,
    slug: row.slug,
    status: row.status,
    description: row.description ?? '',
    fulfillment_type: row.fulfillment_type,
    categories,
    variations,
    min_price: prices.length ? Math.min(...prices) : null,
    max_price: prices.length ? Math.max(...prices) : null,
    has_subscription: active.some((v) => v.payment_type === 'subscription'),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Variations of many products in one query: product id → variations ordered by position, id. */
export async function variationsOf(db: Knex | Knex.Transaction, productIds: number[]): Promise<Map<number, Variation[]>> {
  const out = new Map<number, Variation[]>(productIds.map((id) => [id, []]));
  if (!productIds.length) return out;
  const rows = (await db('store_product_variations').whereIn('product_id', productIds).orderBy(['product_id', 'position', 'id'])) as VariationRow[];
  for (const row of rows) out.get(Number(row.product_id))?.push(presentVariation(row));
  return out;
}

/** Categories of many products in one query: product id → `{id, name, slug}` ordered by name. */
export async function categoriesOf(db: Knex | Knex.Transaction, productIds: number[]): Promise<Map<number, Product['categories']>> {
  const out = new Map<number, Product['categories']>(productIds.map((id) => [id, []]));
  if (!productIds.length) return out;
  const rows = (await db('store_product_category_relations as r')
    .join('store_product_categories as c', 'c.id', 'r.category_id')
    .whereIn('r.product_id', productIds)
    .orderBy(['c.name', 'c.id'])
    .select('r.product_id', 'c.id', 'c.name', 'c.slug')) as Array<{ product_id: Num; id: Num; name: string; slug: string }>;
  for (const row of rows) out.get(Number(row.product_id))?.push({ id: Number(row.id), name: row.name, slug: row.slug });
  return out;
}

/** Products with their variations and categories: two batched queries whatever the number of products. */
export async function presentProducts(db: Knex | Knex.Transaction, rows: ProductRow[]): Promise<Product[]> {
  const ids = rows.map((row) => Number(row.id));
  const [variations, categories] = await Promise.all([variationsOf(db, ids), categoriesOf(db, ids)]);
  return rows.map((row) => presentProduct(row, variations.get(Number(row.id)) ?? [], categories.get(Number(row.id)) ?? []));
}
