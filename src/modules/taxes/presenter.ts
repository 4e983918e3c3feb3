import { parseJson } from '../../core/db';
import type { TaxRecord, TaxRecordMeta, TaxRecordRow } from './types';

export function presentTaxRecord(row: TaxRecordRow): TaxRecord {
  return {
    id: Number(row.id),
    order_id: Number(row.order_id),
    tax_rate_id: row.tax_rate_id === null ? null : Number(row.tax_rate_id),
    shipping_tax: Number(row.shipping_tax),
    order_tax: Number(row.order_tax),
    total_tax: Number(row.total_tax),
    meta: parseJson<TaxRecordMeta>(row.meta, { rates: [], tax_country: '', store_vat_number: '' }),
    filed_at: (row.filed_at as string | null) ?? null,
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
  };
}
