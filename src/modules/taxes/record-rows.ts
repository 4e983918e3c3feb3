import { mulDivRound } from '../../core/money';
import type { OrderTaxData } from '../orders/totals';
import type { NewTaxRecord, TaxRecord, TaxRecordMeta } from './types';

/** The records paying an order writes: one per rate share of the tax it was priced with. */
export function paidTaxRecords(orderId: number, data: OrderTaxData, storeVatNumber: string, now: string): NewTaxRecord[] {
  return data.rates.map((share) => {
    const meta: TaxRecordMeta = { rates: [share], tax_country: data.tax_country, store_vat_number: storeVatNumber };
    return {
      order_id: orderId,
      tax_rate_id: share.tax_rate_id,
      order_tax: share.order_tax,
      shipping_tax: share.shipping_tax,
      total_tax: share.order_tax + share.shipping_tax,
      meta: JSON.stringify(meta),
      filed_at: null,
      created_at: now,
      updated_at: now,
    };
  });
}

/** The order's ledger after a refund (cents): `paid` = Σ succeeded charges, `refunded` = Σ settled refunds. */
export interface RefundLedger {
  paid: number;
  refunded: number;
}

/**
 * The records reversing a refund's share of the tax. For each record the order was paid with, what is reversed in
 * all is `round-half-up(original × refunded / paid)`, separately for order and shipping tax; the new record is the
 * difference from what earlier reversals took, so a full refund reverses exactly and partial ones never drift.
 * `records` are all of the order's records (originals and earlier reversals); no record when nothing moves.
 */
export function reversalTaxRecords(records: TaxRecord[], ledger: RefundLedger, refundTransactionId: number, now: string): NewTaxRecord[] {
  if (ledger.paid <= 0) return [];
  const reversed = new Map<number, { order: number; shipping: number }>();
  for (const record of records) {
    const of = record.meta.reverses;
    if (of === undefined) continue;
    const sum = reversed.get(of) ?? { order: 0, shipping: 0 };
    reversed.set(of, { order: sum.order - record.order_tax, shipping: sum.shipping - record.shipping_tax });
  }
  const out: NewTaxRecord[] = [];
  for (const original of records.filter((r) => r.meta.reverses === undefined)) {
    const done = reversed.get(original.id) ?? { order: 0, shipping: 0 };
    const order_tax = done.order - mulDivRound(original.order_tax, ledger.refunded, ledger.paid);
    const shipping_tax = done.shipping - mulDivRound(original.shipping_tax, ledger.refunded, ledger.paid);
    if (order_tax === 0 && shipping_tax === 0) continue;
    const meta: TaxRecordMeta = {
      rates: original.meta.rates.map((share) => ({ ...share, order_tax, shipping_tax })),
      tax_country: original.meta.tax_country,
      store_vat_number: original.meta.store_vat_number,
      refund_transaction_id: refundTransactionId,
      reverses: original.id,
    };
    out.push({
      order_id: original.order_id,
      tax_rate_id: original.tax_rate_id,
      order_tax,
      shipping_tax,
      total_tax: order_tax + shipping_tax,
      meta: JSON.stringify(meta),
      filed_at: null,
      created_at: now,
      updated_at: now,
    });
  }
  return out;
}
