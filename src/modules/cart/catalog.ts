/** What the cart needs to know of the variations it holds: whether they can be bought, and how many. */
import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;
type Num = number | string;

/** Payment statuses of an order that is still waiting for its money (its cart may be edited and placed again). */
export const UNPAID_STATUSES = ['pending', 'failed'];

export interface CartVariation {
  id: number;
  product_id: number;
  /** "Product - Variation", as messages name a line. */
  label: string;
  /** The product is published and the variation active. */
  purchasable: boolean;
  /** Units the cart may take: managed stock minus what other checkouts hold; null when stock is not managed. */
  available: number | null;
}

interface Row {
  id: Num;
  product_id: Num;
  product_title: string;
  title: string;
  product_status: string;
  status: string;
  manage_stock: Num;
  stock_quantity: Num;
  stock_on_hold: Num;
}

/**
 * Units the cart's own unpaid order holds (`stock_units` of its lines while its stock is `held`), by variation: when
 * that order is placed again (a retry after a gateway error) its hold is the cart's own and must not count against it.
 */
export async function heldByOrder(db: Db, orderId: number | null): Promise<Map<number, number>> {
  if (orderId === null) return new Map();
  const rows = (await db('store_order_items as i')
    .join('store_orders as o', 'o.id', 'i.order_id')
    .where('o.id', orderId)
    .where('o.stock_state', 'held')
    .whereNot('o.status', 'canceled')
    .whereIn('o.payment_status', UNPAID_STATUSES)
    .whereNotNull('i.variation_id')
    .groupBy('i.variation_id')
    .select('i.variation_id')
    .sum({ units: 'i.stock_units' })) as Array<{ variation_id: Num; units: Num }>;
  return new Map(rows.map((row) => [Number(row.variation_id), Number(row.units)]));
}

/** The variations by id (unknown ids are left out), in one query; `credit` adds back units the cart itself holds. */
export async function cartVariations(db: Db, ids: number[], credit: Map<number, number> = new Map()): Promise<Map<number, CartVariation>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows = (await db('store_product_variations as v')
    .join('store_products as p', 'p.id', 'v.product_id')
    .whereIn('v.id', unique)
    .select(
      'v.id',
      'v.product_id',
      'p.title as product_title',
      'v.title',
      'p.status as product_status',
      'v.status',
      'v.manage_stock',
      'v.stock_quantity',
      'v.stock_on_hold',
    )) as Row[];
  return new Map(
    rows.map((row) => {
      const id = Number(row.id);
      const managed = Number(row.manage_stock) === 1;
      const available = Number(row.stock_quantity) - Number(row.stock_on_hold) + (credit.get(id) ?? 0);
      return [
        id,
        {
          id,
          product_id: Number(row.product_id),
          label: row.title && row.title !== row.product_title ? `${row.product_title} - ${row.title}` : row.product_title,
          purchasable: row.product_status === 'publish' && row.status === 'active',
          available: managed ? Math.max(0, available) : null,
        },
      ];
    }),
  );
}
