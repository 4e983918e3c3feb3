/**
 * A customer's orders, as the customer routes (`/customers/{id}/orders`, `/customers/{id}/order`) show them: the
 * admin's page with search, views and filters, the portal's summaries, and every order with its items.
 */
import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { whereContains } from '../../core/db';
import { runList, type ListSpec } from '../../core/list';
import { paginate, readPage, type Page } from '../../core/page';
import { applyAdvancedFilters, parseAdvancedFilters } from '../customers/filters';
import { ownedBy } from '../customers/owner';
import type { OrderView } from '../customers/schemas';
import { presentOrder, presentOrderItem, presentOrderSummary, type OrderRow } from '../order-records/presenter';
import { applyOrderView, ORDER_PROPERTIES, ORDER_SORTABLE } from './list-filters';

/** Items of many orders at once; `signup_fee` lines are left out (the `filtered_order_items` of the reference). */
async function filteredItemsByOrder(db: Knex | Knex.Transaction, orderIds: number[]): Promise<Map<number, ReturnType<typeof presentOrderItem>[]>> {
  const out = new Map<number, ReturnType<typeof presentOrderItem>[]>(orderIds.map((id) => [id, []]));
  if (!orderIds.length) return out;
  const rows = (await db('store_order_items')
    .whereIn('order_id', orderIds)
    .whereNot('payment_type', 'signup_fee')
    .orderBy(['order_id', 'cart_index', 'id'])) as Array<Record<string, unknown>>;
  for (const row of rows) out.get(Number(row.order_id))?.push(presentOrderItem(row));
  return out;
}

/** `GET /customers/{customerId}/order`: every order of the customer, newest first, with its filtered items. */
export async function customerOrdersWithItems(db: Knex, customerId: number) {
  const orders = (await db('store_orders').where({ customer_id: customerId }).orderBy('id', 'desc')) as OrderRow[];
  const items = await filteredItemsByOrder(
    db,
    orders.map((o) => Number(o.id)),
  );
  return orders.map((row) => ({ ...presentOrder(row), filtered_order_items: items.get(Number(row.id)) ?? [] }));
}

const ORDER_LIST: Omit<ListSpec, 'limits'> = {
  sortable: ORDER_SORTABLE,
  defaultSort: 'id',
  search: {
    columns: {
      id: { column: 'o.id', kind: 'integer' },
      invoice_no: { column: 'o.invoice_no', kind: 'string' },
      status: { column: 'o.status', kind: 'string' },
      payment_status: { column: 'o.payment_status', kind: 'string' },
      type: { column: 'o.type', kind: 'string' },
      payment_method: { column: 'o.payment_method', kind: 'string' },
      currency: { column: 'o.currency', kind: 'string' },
      total_amount: { column: 'o.total_amount', kind: 'integer' },
      total_paid: { column: 'o.total_paid', kind: 'integer' },
      created_at: { column: 'o.created_at', kind: 'date' },
      completed_at: { column: 'o.completed_at', kind: 'date' },
    },
    idColumn: 'o.id',
    // the invoice number, an item's title, or the id when the text is a number
    text: (query, text) =>
      query.where((q) => {
        if (/^\d{1,15}$/.test(text)) q.where('o.id', Number(text));
        q.orWhere((w) => whereContains(w, 'o.invoice_no', text)).orWhereExists((sub) =>
          sub
            .select('si.id')
            .from('store_order_items as si')
            .whereRaw('?? = ??', ['si.order_id', 'o.id'])
            .where((w) => whereContains(w, 'si.title', text).orWhere((x) => whereContains(x, 'si.post_title', text))),
        );
      }),
  },
};

export interface CustomerOrdersInput {
  page?: unknown;
  per_page?: unknown;
  search?: string;
  sort_by?: string;
  sort_type?: string;
  filter_type?: 'simple' | 'advanced';
  advanced_filters?: string;
  active_view?: OrderView;
}

/** A page of one customer's orders (admin): search, views, advanced filters, allowlisted sort. */
export async function pageOfCustomerOrders(ctx: Ctx, customerId: number, input: CustomerOrdersInput): Promise<Page<ReturnType<typeof presentOrder>>> {
  const filterCtx = { zone: ctx.tz, now: ctx.clock.now() };
  const groups = input.filter_type === 'advanced' ? parseAdvancedFilters(input.advanced_filters, ORDER_PROPERTIES, filterCtx) : [];
  const query = ctx.db('store_orders as o').select('o.*').where('o.customer_id', customerId);
  if (input.active_view) applyOrderView(query, input.active_view);
  applyAdvancedFilters(query, ctx.db, groups, ORDER_PROPERTIES, filterCtx);
  const page = await runList<OrderRow>(ctx, query, input, { ...ORDER_LIST, limits: { min: 1, max: 199, default: 10 } }, 'o.id');
  return { ...page, data: page.data.map(presentOrder) };
}

/** The portal's page of the caller's own orders (summaries, newest first, 15 per page); ownership is in the query. */
export async function portalOrderPage(
  ctx: Ctx,
  customerId: number,
  ownId: number | null,
  input: { page?: unknown; per_page?: unknown },
): Promise<Page<ReturnType<typeof presentOrderSummary>>> {
  const { page, perPage } = readPage(input, { min: 1, max: 199, default: 15 });
  const query = ownedBy(ctx.db('store_orders').where('customer_id', customerId), ownId).select('*').orderBy('id', 'desc');
  const result = await paginate<OrderRow>(query, page, perPage);
  return { ...result, data: result.data.map(presentOrderSummary) };
}
