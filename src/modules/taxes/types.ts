import type { TaxRateShare } from '../orders/totals';

/** What an order tax record keeps in `meta` (spec: `rates`, `tax_country`, `store_vat_number`). */
export interface TaxRecordMeta {
  /** The one rate share the record is for (negative amounts on a reversing record). */
  rates: TaxRateShare[];
  tax_country: string;
  store_vat_number: string;
  /** Reversing records only: the refund transaction that gave the money back, and the record it reverses. */
  refund_transaction_id?: number;
  reverses?: number;
}

/** An order tax record (spec: "Order tax record"); amounts in cents, negative on a record that reverses a refund's share. */
export interface TaxRecord {
  id: number;
  order_id: number;
  tax_rate_id: number | null;
  shipping_tax: number;
  order_tax: number;
  total_tax: number;
  meta: TaxRecordMeta;
  filed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A `store_order_tax_rates` row as the drivers return it (bigints may come as text). */
export type TaxRecordRow = Record<keyof TaxRecord, unknown>;

/** A row ready to insert into `store_order_tax_rates`. */
export type NewTaxRecord = {
  order_id: number;
  tax_rate_id: number | null;
  shipping_tax: number;
  order_tax: number;
  total_tax: number;
  meta: string;
  filed_at: string | null;
  created_at: string;
  updated_at: string;
};
