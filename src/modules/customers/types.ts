export type CustomerStatus = 'active' | 'inactive' | 'archived';
/** The statuses `change_customer_status` may set. */
export const CUSTOMER_STATUSES: CustomerStatus[] = ['active', 'inactive', 'archived'];

export type AddressType = 'billing' | 'shipping';
export const ADDRESS_TYPES: AddressType[] = ['billing', 'shipping'];

/** A stored customer as the spec's Customer resource lists it. */
export interface CustomerRecord {
  id: number;
  user_id: number | null;
  contact_id: number | null;
  email: string;
  first_name: string;
  last_name: string;
  status: CustomerStatus;
  purchase_value: Record<string, number>;
  purchase_count: number;
  /** Cents. */
  ltv: number;
  first_purchase_date: string | null;
  last_purchase_date: string | null;
  /** Average order value, cents. */
  aov: number;
  notes: string;
  uuid: string;
  country: string;
  city: string;
  state: string;
  postcode: string;
  created_at: string;
  updated_at: string;
}

export interface FormattedAddress {
  country: string;
  state: string;
  city: string;
  postcode: string;
  address_1: string;
  address_2: string;
  type: AddressType;
  name: string;
  company_name: string;
  label: string;
  phone: string;
  /** The address written the way its country writes addresses, lines joined with ", ". */
  full_address: string;
}

export interface Address {
  id: number;
  customer_id: number;
  type: AddressType;
  is_primary: 0 | 1;
  status: string;
  label: string;
  name: string;
  company_name: string;
  address_1: string;
  address_2: string;
  city: string;
  state: string;
  postcode: string;
  country: string;
  phone: string;
  email: string;
  meta: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  formatted_address: FormattedAddress;
}
