import { formatFullAddress } from '../../core/address';
import { parseJson } from '../../core/db';
import type { Address } from './types';

type Num = number | string;

/** A row of `store_customer_addresses` as the database returns it (MySQL may give numbers as strings). */
/** A stored address: the presented fields as the database returns them, plus the primary slot. */
export type AddressRow = Omit<Address, 'id' | 'customer_id' | 'is_primary' | 'meta' | 'formatted_address'> & {
  id: Num;
  customer_id: Num;
  is_primary: Num;
  primary_slot: string | null;
  meta: unknown;
};

/** What the presenter reads: a row (its `primary_slot` is never shown), or an address presented before. */
export type AddressSource = Omit<AddressRow, 'primary_slot'> & { primary_slot?: string | null };

const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));

/** The spec's Address: honest types, `meta` an object, `formatted_address` with `full_address`; `primary_slot` stays inside. */
export async function presentAddress(row: AddressSource): Promise<Address> {
  const fields = {
    country: text(row.country),
    state: text(row.state),
    city: text(row.city),
    postcode: text(row.postcode),
    address_1: text(row.address_1),
    address_2: text(row.address_2),
    name: text(row.name),
    company_name: text(row.company_name),
  };
  const meta = parseJson<unknown>(row.meta, {});
  return {
    id: Number(row.id),
    customer_id: Number(row.customer_id),
    type: row.type,
    is_primary: Number(row.is_primary) ? 1 : 0,
    status: text(row.status),
    label: text(row.label),
    ...fields,
    phone: text(row.phone),
    email: text(row.email),
    meta: meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {},
    created_at: row.created_at,
    updated_at: row.updated_at,
    formatted_address: {
      ...fields,
      type: row.type,
      label: text(row.label),
      phone: text(row.phone),
      full_address: await formatFullAddress(fields),
    },
  };
}

export function presentAddresses(rows: readonly AddressSource[]): Promise<Address[]> {
  return Promise.all(rows.map(presentAddress));
}
