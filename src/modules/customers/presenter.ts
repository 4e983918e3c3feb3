import crypto from 'node:crypto';
import countries from 'i18n-iso-countries';
import type { Host } from '../../host/contract';
import { parseJson } from '../../core/db';
import type { Label } from '../labels/types';
import type { CustomerRecord, CustomerStatus } from './types';

type Num = number | string;

/** A `store_customers` row as the database returns it (MySQL may hand back BIGINT as strings). */
export interface CustomerRow {
  id: Num;
  user_id: Num | null;
  contact_id: Num | null;
  email: string;
  first_name: string;
  last_name: string;
  status: CustomerStatus;
  purchase_value: unknown;
  purchase_count: Num;
  ltv: Num;
  first_purchase_date: string | null;
  last_purchase_date: string | null;
  aov: Num;
  notes: string | null;
  uuid: string;
  country: string;
  city: string;
  state: string;
  postcode: string;
  created_at: string;
  updated_at: string;
}

/** The customer's address fields, formatted (spec: country, state, city, postcode, first_name, last_name, full_name). */
export interface CustomerFormattedAddress {
  country: string;
  state: string;
  city: string;
  postcode: string;
  first_name: string;
  last_name: string;
  full_name: string;
}

/** A customer on administrative reads: the record plus the computed fields. */
export interface AdminCustomer extends CustomerRecord {
  full_name: string;
  photo: string;
  country_name: string;
  formatted_address: CustomerFormattedAddress;
  user_link: string | null;
  selected_labels?: number[];
  labels?: Label[];
}

const numberOrNull = (value: Num | null | undefined): number | null => (value === null || value === undefined ? null : Number(value));

function purchaseValue(value: unknown): Record<string, number> {
  const parsed = parseJson<Record<string, unknown>>(value, {});
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  return Object.fromEntries(Object.entries(parsed).map(([currency, cents]) => [currency, Number(cents) || 0]));
}

export function presentCustomer(row: CustomerRow): CustomerRecord {
  return {
    id: Number(row.id),
    user_id: numberOrNull(row.user_id),
    contact_id: numberOrNull(row.contact_id),
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    status: row.status,
    purchase_value: purchaseValue(row.purchase_value),
    purchase_count: Number(row.purchase_count),
    ltv: Number(row.ltv),
    first_purchase_date: row.first_purchase_date,
    last_purchase_date: row.last_purchase_date,
    aov: Number(row.aov),
    notes: row.notes ?? '',
    uuid: row.uuid,
    country: row.country,
    city: row.city,
    state: row.state,
    postcode: row.postcode,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const fullName = (c: { first_name: string; last_name: string }) => [c.first_name, c.last_name].filter(Boolean).join(' ');

/** Gravatar of the lower-cased email (`d=mp`: the grey silhouette when the address has none). */
export function gravatar(email: string): string {
  const hash = crypto.hash('md5', email.trim().toLowerCase());
  return `https://www.gravatar.com/avatar/${hash}?s=128&d=mp`;
}

/** English names of the (at most ~250) ISO codes seen so far. */
const countryNames = new Map<string, string>();

export function countryName(code: string): string {
  if (!code) return '';
  let name = countryNames.get(code);
  if (name === undefined) {
    name = countries.getName(code.toUpperCase(), 'en') || '';
    if (name) countryNames.set(code, name);
  }
  return name;
}

/** The dashboard address of the customer list. */
export function adminCustomersUrl(host: Host): string {
  return `${host.site.url.replace(/\/+$/, '')}/wp-admin/admin.php?page=store#/customers`;
}

/** The host's edit screen of a linked user. */
export function userLink(host: Host, userId: number | null): string | null {
  return userId === null ? null : `${host.site.url.replace(/\/+$/, '')}/wp-admin/user-edit.php?user_id=${userId}`;
}

/** Adds the computed fields of administrative reads to the record (in place: records are built per request). */
export function presentAdmin(host: Host, customer: CustomerRecord): AdminCustomer {
  const out = customer as AdminCustomer;
  const name = fullName(customer);
  const country = countryName(customer.country);
  out.full_name = name;
  out.photo = gravatar(customer.email);
  out.country_name = country;
  out.formatted_address = {
    country,
    state: customer.state,
    city: customer.city,
    postcode: customer.postcode,
    first_name: customer.first_name,
    last_name: customer.last_name,
    full_name: name,
  };
  out.user_link = userLink(host, customer.user_id);
  return out;
}

/** The customer as the portal shows it to its owner (spec: portal `GET /customers/{customerId}`). */
export function presentPortal(customer: CustomerRecord) {
  return {
    id: customer.id,
    user_id: customer.user_id,
    email: customer.email,
    first_name: customer.first_name,
    last_name: customer.last_name,
    status: customer.status,
    purchase_value: customer.purchase_value,
    purchase_count: customer.purchase_count,
    ltv: customer.ltv,
    country: customer.country,
    city: customer.city,
    state: customer.state,
    postcode: customer.postcode,
    created_at: customer.created_at,
    updated_at: customer.updated_at,
  };
}

/** The columns `select` may name (the record's stored fields). */
export const SELECTABLE_COLUMNS = [
  'id',
  'user_id',
  'contact_id',
  'email',
  'first_name',
  'last_name',
  'status',
  'purchase_value',
  'purchase_count',
  'ltv',
  'first_purchase_date',
  'last_purchase_date',
  'aov',
  'notes',
  'uuid',
  'country',
  'city',
  'state',
  'postcode',
  'created_at',
  'updated_at',
] as const;

/** Only the selected fields of a presented customer. */
export function pick(customer: CustomerRecord, columns: readonly string[]): Record<string, unknown> {
  const source = customer as unknown as Record<string, unknown>;
  return Object.fromEntries(columns.map((c) => [c, source[c]]));
}
