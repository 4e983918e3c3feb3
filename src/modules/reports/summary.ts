/** The sales summary every revenue-style report shows, from summed metrics (cents). */
export interface SalesSummary {
  orders: number;
  gross_revenue: number;
  net_revenue: number;
  refund_amount: number;
  refunded_orders: number;
  tax_total: number;
  shipping_total: number;
  shipping_tax: number;
  items_sold: number;
  average_order_value: number;
  average_net_value: number;
}

export type SummaryMetric = 'orders' | 'refunded_orders' | 'gross' | 'refund' | 'tax' | 'shipping_tax' | 'shipping_total' | 'items';

/** `total / count` rounded half up to a whole cent in integer arithmetic; `0` when there is nothing to divide by. */
function average(total: number, count: number): number {
  return count ? Math.floor((2 * total + count) / (2 * count)) : 0;
}

/** Net revenue is always derived: gross − refunds − tax − shipping tax (spec). */
export function netRevenue(metrics: Partial<Record<SummaryMetric, number>>): number {
  return (metrics.gross ?? 0) - (metrics.refund ?? 0) - (metrics.tax ?? 0) - (metrics.shipping_tax ?? 0);
}

export function salesSummary(metrics: Partial<Record<SummaryMetric, number>>): SalesSummary {
  const orders = metrics.orders ?? 0;
  const gross = metrics.gross ?? 0;
  const net = netRevenue(metrics);
  return {
    orders,
    gross_revenue: gross,
    net_revenue: net,
    refund_amount: metrics.refund ?? 0,
    refunded_orders: metrics.refunded_orders ?? 0,
    tax_total: metrics.tax ?? 0,
    shipping_total: metrics.shipping_total ?? 0,
    shipping_tax: metrics.shipping_tax ?? 0,
    items_sold: metrics.items ?? 0,
    average_order_value: average(gross, orders),
    average_net_value: average(net, orders),
  };
}
