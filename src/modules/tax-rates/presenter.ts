import { addressRules } from '../../core/address';
import type { TaxRate, TaxRateRow } from './types';

const flag = (value: number | string): 0 | 1 => (Number(value) ? 1 : 0);

/** The state's name from the address data (`CA` → `California`), else the stored code. */
async function stateName(country: string, state: string): Promise<string> {
  if (!state) return '';
  const rules = await addressRules(country);
  return rules?.states.find((option) => option.value === state)?.label ?? state;
}

export async function presentRate(row: TaxRateRow): Promise<TaxRate> {
  return {
    id: Number(row.id),
    class_id: Number(row.class_id),
    country: row.country,
    state: row.state,
    postcode: row.postcode,
    city: row.city,
    rate: row.rate,
    name: row.name,
    group: row.group,
    priority: Number(row.priority),
    is_compound: flag(row.is_compound),
    for_shipping: row.for_shipping === null ? null : Number(row.for_shipping),
    for_order: flag(row.for_order),
    formatted_state: await stateName(row.country, row.state),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
