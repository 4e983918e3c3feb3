import { parseJson } from '../../core/db';

type Num = number | string;

/** An order item as the customer sees it on the dashboard. */
export interface DashboardOrderItem {
  id: number;
  post_title: string;
  title: string;
  quantity: number;
  payment_type: string;
  /** Only the customer-facing part of the line meta: the bundle link (spec). */
  line_meta: { bundle_parent_item_id: number | null };
}

/** The spec's customer-facing order summary, with the dashboard's `renewals_count` and `order_items`. */
export interface DashboardOrder {
  id: number;
  invoice_no: string;
  total_amount: number;
  uuid: string;
  type: string;
  status: string;
  created_at: string;
  renewals_count: number;
  order_items: DashboardOrderItem[];
}

export interface OrderSummaryRow {
  id: Num;
  invoice_no: string;
  total_amount: Num;
  uuid: string;
  type: string;
  status: string;
  created_at: string;
}

export interface OrderItemRow {
  id: Num;
  order_id: Num;
  post_title: string;
  title: string;
  quantity: Num;
  payment_type: string;
  line_meta: unknown;
}

function bundleParent(lineMeta: unknown): number | null {
  const meta = parseJson<unknown>(lineMeta, {});
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return null;
  const parent = (meta as { bundle_parent_item_id?: unknown }).bundle_parent_item_id;
  const id = Number(parent);
  return parent === null || parent === undefined || parent === '' || !Number.isInteger(id) || id <= 0 ? null : id;
}

export function presentOrderItem(row: OrderItemRow): DashboardOrderItem {
  return {
    id: Number(row.id),
    post_title: row.post_title,
    title: row.title,
    quantity: Number(row.quantity),
    payment_type: row.payment_type,
    line_meta: { bundle_parent_item_id: bundleParent(row.line_meta) },
  };
}

export function presentDashboardOrder(row: OrderSummaryRow, renewals: number, items: DashboardOrderItem[]): DashboardOrder {
  return {
    id: Number(row.id),
    invoice_no: row.invoice_no,
    total_amount: Number(row.total_amount),
    uuid: row.uuid,
    type: row.type,
    status: row.status,
    created_at: row.created_at,
    renewals_count: renewals,
    order_items: items,
  };
}
