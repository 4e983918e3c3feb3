import type { Knex } from 'knex';
import type { Ctx } from '../../core/context';
import { insertMany, parseJson } from '../../core/db';
import { toTimestamp } from '../../core/time';
import type { Host } from '../../host/contract';
import type { OrderRow } from '../order-records/presenter';
import { onOrderEvent, type OrderEvent } from '../order-records/order-events';
import type { OrderTaxData } from '../orders/totals';
import { getStoreSettings } from '../settings/store-settings';
import { presentTaxRecord } from './presenter';
import { paidTaxRecords, reversalTaxRecords } from './record-rows';
import type { TaxRecordRow } from './types';

const TABLE = 'store_order_tax_rates';

/**
 * Paying an order writes one record per rate share of the tax it was priced with (`store_orders.tax_data`), once: an
 * order that has records already gets none (a second payment of a grown order keeps the first breakdown).
 */
async function writePaid(ctx: Ctx, trx: Knex.Transaction, order: OrderRow): Promise<void> {
  const data = parseJson<OrderTaxData | null>(order.tax_data, null);
  if (!data?.rates?.length) return;
  const orderId = Number(order.id);
  if (await trx(TABLE).where({ order_id: orderId }).first('id')) return;
  const { store_vat_number } = await getStoreSettings(ctx.host, trx);
  await insertMany(trx, TABLE, paidTaxRecords(orderId, data, store_vat_number, toTimestamp(ctx.clock.now())));
}

/** A settled refund writes the records reversing its share (see `reversalTaxRecords`); the order row is locked by the refund. */
async function writeRefunded(ctx: Ctx, trx: Knex.Transaction, order: OrderRow, refundTransactionId: number): Promise<void> {
  const orderId = Number(order.id);
  const rows = (await trx(TABLE).where({ order_id: orderId }).orderBy('id')) as TaxRecordRow[];
  if (!rows.length) return;
  const ledger = { paid: Number(order.total_paid), refunded: Number(order.total_refund) };
  await insertMany(trx, TABLE, reversalTaxRecords(rows.map(presentTaxRecord), ledger, refundTransactionId, toTimestamp(ctx.clock.now())));
}

async function onEvent(ctx: Ctx, trx: Knex.Transaction, event: OrderEvent): Promise<void> {
  if (event.type === 'paid') await writePaid(ctx, trx, event.order);
  else if (event.type === 'refunded') await writeRefunded(ctx, trx, event.order, event.refund_transaction_id);
}

/** Order tax records follow payments and refunds inside their transactions: a failed write rolls the payment or refund back. */
export function registerTaxRecords(host: Host): void {
  onOrderEvent(host, onEvent);
}
