import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { getStoreSettings } from '../settings/store-settings';

/**
 * Gives an order its receipt number and invoice number (`<invoice_prefix><receipt number>`) once, when it becomes
 * paid; an order that already has one keeps it, and an invoice number typed in by an admin is kept. Must run inside the transaction that marks the order paid: the
 * counter row stays locked until it commits, so numbers are strictly increasing and unique under concurrency.
 * The first number is the store's `min_receipt_number` when that is higher than the counter.
 */
export async function assignInvoiceNumber(ctx: Ctx, trx: Knex.Transaction, orderId: number): Promise<{ receipt_number: number; invoice_no: string }> {
  const order = (await trx('store_orders').where({ id: orderId }).first('receipt_number', 'invoice_no')) as
    { receipt_number: number | string | null; invoice_no: string } | undefined;
  if (!order) throw new Error(`order ${orderId} does not exist`);
  if (order.receipt_number !== null) return { receipt_number: Number(order.receipt_number), invoice_no: order.invoice_no };
  const settings = await getStoreSettings(ctx.host, trx);
  const floor = Math.max(0, Math.trunc(settings.min_receipt_number) - 1);
  await trx('store_counters')
    .where({ name: 'receipt' })
    .update({ value: trx.raw('case when value < ? then ? else value end + 1', [floor, floor]) });
  const counter = (await trx('store_counters').where({ name: 'receipt' }).first('value')) as { value: number | string };
  const receipt_number = Number(counter.value);
  const invoice_no = order.invoice_no || `${settings.invoice_prefix}${receipt_number}`;
  await trx('store_orders').where({ id: orderId }).update({ receipt_number, invoice_no });
  return { receipt_number, invoice_no };
}
