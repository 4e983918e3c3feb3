import type { Ctx } from '../../../core/context';
import { aggregate } from '../engine/aggregate';
import { parseReportParams } from '../params';
import { productTitles, variantKey, variantTitles } from './titles';

/**
 * What sold most over the standard range: quantities, orders and line revenue (cents) per product or variation,
 * from the `items` family. A product's `orders` adds up the orders of each of its variations, so an order holding
 * two variations of one product counts twice there.
 */

interface Sold {
  product_id: number;
  variation_id: number;
  quantity: number;
  orders: number;
  revenue: number;
}

export interface SoldProduct {
  product_id: number;
  title: string;
  quantity: number;
  orders: number;
  revenue: number;
}

export interface RankedProduct extends SoldProduct {
  rank: number;
}

export interface RankedVariant extends RankedProduct {
  variation_id: number;
}

/** Most quantity first, then most revenue, then the lower id. */
const byQuantity = (a: Sold, b: Sold) => b.quantity - a.quantity || b.revenue - a.revenue || a.product_id - b.product_id || a.variation_id - b.variation_id;

async function topSold(ctx: Ctx, query: Record<string, unknown>, perVariation: boolean, limit: number): Promise<Sold[]> {
  const { filters, range } = await parseReportParams(ctx, query);
  const groupBy = perVariation ? (['product_id', 'variation_id'] as const) : (['product_id'] as const);
  const rows = await aggregate(ctx, { family: 'items', filters, buckets: [range], groupBy: [...groupBy] });
  return rows
    .map(({ dims, metrics }) => ({ product_id: Number(dims.product_id), variation_id: perVariation ? Number(dims.variation_id) : 0, ...metrics }))
    .sort(byQuantity)
    .slice(0, limit);
}

async function topProducts(ctx: Ctx, query: Record<string, unknown>, limit: number): Promise<SoldProduct[]> {
  const sold = await topSold(ctx, query, false, limit);
  const titles = await productTitles(
    ctx.db,
    sold.map((row) => row.product_id),
  );
  return sold.map(({ product_id, quantity, orders, revenue }) => ({ product_id, title: titles.get(product_id) ?? '', quantity, orders, revenue }));
}

/** `GET /reports/top-products-sold`: the ten products sold in the largest quantities. */
export async function topProductsSold(ctx: Ctx, query: Record<string, unknown>): Promise<{ top_products_sold: SoldProduct[] }> {
  return { top_products_sold: await topProducts(ctx, query, 10) };
}

/** `GET /reports/fetch-top-sold-products`: the twenty products sold in the largest quantities, ranked. */
export async function fetchTopSoldProducts(ctx: Ctx, query: Record<string, unknown>): Promise<{ data: RankedProduct[] }> {
  const products = await topProducts(ctx, query, 20);
  return { data: products.map((product, index) => ({ rank: index + 1, ...product })) };
}

/** `GET /reports/fetch-top-sold-variants`: the twenty variations sold in the largest quantities, ranked. */
export async function fetchTopSoldVariants(ctx: Ctx, query: Record<string, unknown>): Promise<{ data: RankedVariant[] }> {
  const sold = await topSold(ctx, query, true, 20);
  const titles = await variantTitles(ctx.db, sold);
  return {
    data: sold.map(({ product_id, variation_id, quantity, orders, revenue }, index) => ({
      rank: index + 1,
      product_id,
      variation_id,
      title: titles.get(variantKey(product_id, variation_id)) ?? '',
      quantity,
      orders,
      revenue,
    })),
  };
}
