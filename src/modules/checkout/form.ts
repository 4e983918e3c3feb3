/**
 * The place-order form read into checked values. What is required follows the store settings (name mode, checkout
 * fields, terms) and the cart (a shipping address and method only for physical goods); addresses follow their
 * country's rules (`validateAddressFields`). Every problem is a field error in one message style:
 * "The billing city field is required.", "The billing postcode is not valid for Germany.".
 */
import { normalizeAddressFields, validateAddressFields } from '../../core/address';
import type { FieldErrors } from '../../core/errors';
import { label } from '../../core/validate';
import { isTimeZone } from '../../core/time';
import type { HostUser } from '../../host/contract';
import type { AddressRow } from '../customers/addresses';
import type { AddressType } from '../customers/types';
import type { CheckoutField, StoreSettings } from '../settings/types';
import type { PlaceOrderBody } from './schemas';

/** An address as the order keeps it (`store_order_addresses`). */
export interface CheckoutAddress {
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
}

/** The columns an address writes (order and customer addresses alike). */
export function addressValues(address: CheckoutAddress, now: string): Record<string, unknown> {
  return {
    name: address.name,
    company_name: address.company_name,
    address_1: address.address_1,
    address_2: address.address_2,
    city: address.city,
    state: address.state,
    postcode: address.postcode,
    country: address.country,
    phone: address.phone,
    email: address.email,
    meta: JSON.stringify(address.meta),
    updated_at: now,
  };
}

const UTM_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'utm_id'] as const;
type UtmField = (typeof UTM_FIELDS)[number];

export interface CheckoutForm {
  email: string;
  first_name: string;
  last_name: string;
  billing: CheckoutAddress;
  /** Null when nothing ships (digital goods). */
  shipping: CheckoutAddress | null;
  shipping_method_id: number | null;
  payment_method: string;
  notes: string;
  /** A guest asked for an account (or the store always makes one). */
  create_account: boolean;
  /** The address types typed into the form (not saved addresses named by id). */
  typed_in: AddressType[];
  user_tz: string | null;
  utm: Record<UtmField, string>;
}

export interface FormContext {
  settings: StoreSettings;
  /** The logged-in caller: their email replaces the form's, their name fills the form's blanks. */
  user: HostUser | null;
  /** The caller's saved addresses among those the form names, by id (always empty for a guest). */
  saved: Map<number, AddressRow>;
  /** The cart holds physical goods: a shipping address and method are needed. */
  physical: boolean;
}

const ACCEPTED = ['yes', 'on', '1', 'true'];

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
const required = (field: string) => ({ required: `The ${label(field)} field is required.` });

const blankAddress = (email: string): CheckoutAddress => ({
  name: '',
  company_name: '',
  address_1: '',
  address_2: '',
  city: '',
  state: '',
  postcode: '',
  country: '',
  phone: '',
  email,
  meta: {},
});

function fromSaved(row: AddressRow, email: string): CheckoutAddress {
  return {
    name: text(row.name),
    company_name: text(row.company_name),
    address_1: text(row.address_1),
    address_2: text(row.address_2),
    city: text(row.city),
    state: text(row.state),
    postcode: text(row.postcode),
    country: text(row.country),
    phone: text(row.phone),
    email: text(row.email) || email,
    meta: {},
  };
}

/** The country rules' errors for the fields the form asks (a field the store switched off is never required). */
async function countryErrors(address: CheckoutAddress, prefix: 'billing_' | 'shipping_', asked: (field: string) => boolean): Promise<FieldErrors> {
  const errors = await validateAddressFields(address, prefix);
  return Object.fromEntries(Object.entries(errors).filter(([field]) => field === `${prefix}country` || asked(field)));
}

async function normalized(address: CheckoutAddress): Promise<CheckoutAddress> {
  const { country, state, postcode } = await normalizeAddressFields(address);
  return { ...address, country, state, postcode };
}

interface Names {
  first_name: string;
  last_name: string;
  full: string;
}

function readNames(body: PlaceOrderBody, { settings, user }: FormContext, errors: FieldErrors): Names {
  if (settings.name_mode === 'full') {
    const full = (text(body.billing_full_name) || [user?.first_name, user?.last_name].filter(Boolean).join(' ')).replace(/\s+/g, ' ');
    if (!full) errors.billing_full_name = required('billing_full_name');
    const space = full.indexOf(' ');
    return { first_name: space === -1 ? full : full.slice(0, space), last_name: space === -1 ? '' : full.slice(space + 1), full };
  }
  const first_name = text(body.billing_first_name) || text(user?.first_name);
  const rule = settings.checkout_fields.billing_last_name;
  const last_name = rule.enabled ? text(body.billing_last_name) || text(user?.last_name) : '';
  if (!first_name) errors.billing_first_name = required('billing_first_name');
  if (rule.enabled && rule.required && !last_name) errors.billing_last_name = required('billing_last_name');
  return { first_name, last_name, full: [first_name, last_name].filter(Boolean).join(' ') };
}

/** The billing address typed in: the store's checkout fields decide what is asked and required, the country the rest. */
async function readBilling(body: PlaceOrderBody, context: FormContext, name: string, email: string, errors: FieldErrors): Promise<CheckoutAddress> {
  const fields = context.settings.checkout_fields;
  const asked = (field: string) => fields[field as CheckoutField]?.enabled ?? true;
  const value = (field: CheckoutField) => (fields[field].enabled ? text(body[field]) : '');
  const address: CheckoutAddress = {
    name,
    company_name: value('billing_company_name'),
    address_1: value('billing_address_1'),
    address_2: value('billing_address_2'),
    city: value('billing_city'),
    state: value('billing_state'),
    postcode: value('billing_postcode'),
    country: text(body.billing_country) || context.settings.store_country,
    phone: value('billing_phone'),
    email,
    meta: value('billing_tax_id') ? { tax_id: value('billing_tax_id') } : {},
  };
  const configured: FieldErrors = {};
  for (const field of [
    'billing_company_name',
    'billing_address_1',
    'billing_address_2',
    'billing_city',
    'billing_state',
    'billing_postcode',
    'billing_phone',
    'billing_tax_id',
  ] as const) {
    if (fields[field].enabled && fields[field].required && !text(body[field])) configured[field] = required(field);
  }
  Object.assign(errors, await countryErrors(address, 'billing_', asked), configured);
  return normalized(address);
}

/** A different shipping address typed in (`ship_to_different: yes`): name, country, street and city are required. */
async function readShipping(body: PlaceOrderBody, context: FormContext, email: string, errors: FieldErrors): Promise<CheckoutAddress> {
  const phone = context.settings.checkout_fields.shipping_phone;
  const address: CheckoutAddress = {
    name: text(body.shipping_full_name),
    company_name: '',
    address_1: text(body.shipping_address_1),
    address_2: text(body.shipping_address_2),
    city: text(body.shipping_city),
    state: text(body.shipping_state),
    postcode: text(body.shipping_postcode),
    country: text(body.shipping_country),
    phone: phone.enabled ? text(body.shipping_phone) : '',
    email,
    meta: {},
  };
  const own: FieldErrors = {};
  for (const field of ['shipping_full_name', 'shipping_country', 'shipping_address_1', 'shipping_city'] as const)
    if (!text(body[field])) own[field] = required(field);
  if (phone.enabled && phone.required && !address.phone) own.shipping_phone = required('shipping_phone');
  const byCountry = address.country ? await countryErrors(address, 'shipping_', () => true) : {};
  Object.assign(errors, byCountry, own);
  return normalized(address);
}

function savedAddress(id: number | undefined, field: string, context: FormContext, email: string, errors: FieldErrors): CheckoutAddress | null {
  if (id === undefined) return null;
  const row = context.saved.get(id);
  if (row) return fromSaved(row, email);
  errors[field] = { exists: `The selected ${label(field)} is invalid.` };
  return null;
}

/** Reads and checks the form; the caller throws `errors` when there are any. */
export async function readCheckoutForm(body: PlaceOrderBody, context: FormContext): Promise<{ form: CheckoutForm; errors: FieldErrors }> {
  const { settings, user, physical } = context;
  const errors: FieldErrors = {};
  const email = (user ? user.email : text(body.billing_email)).toLowerCase();
  if (!email) errors.billing_email = required('billing_email');
  const names = readNames(body, context, errors);

  const billing =
    body.billing_address_id === undefined
      ? await readBilling(body, context, names.full, email, errors)
      : (savedAddress(body.billing_address_id, 'billing_address_id', context, email, errors) ?? blankAddress(email));
  if (!billing.name) billing.name = names.full;

  let shipping: CheckoutAddress | null = null;
  if (physical) {
    shipping =
      body.shipping_address_id !== undefined
        ? savedAddress(body.shipping_address_id, 'shipping_address_id', context, email, errors)
        : body.ship_to_different === 'yes'
          ? await readShipping(body, context, email, errors)
          : { ...billing, meta: {} };
    if (body.fc_selected_shipping_method === undefined) errors.shipping_method = required('shipping_method');
  }

  const notesRule = settings.checkout_fields.order_notes;
  const notes = notesRule.enabled ? text(body.order_notes) : '';
  if (notesRule.enabled && notesRule.required && !notes) errors.order_notes = required('order_notes');
  if (settings.terms_enabled && !ACCEPTED.includes(text(body.agree_terms).toLowerCase())) {
    errors.agree_terms = { accepted: 'The agree terms field must be accepted.' };
  }
  const userTz = text(body.user_tz);
  if (userTz && !isTimeZone(userTz)) errors.user_tz = { timezone: 'The user tz field must be a valid timezone.' };

  const wantsAccount = settings.account_creation === 'always' || (settings.account_creation === 'user_choice' && text(body.allow_create_account) === 'yes');
  return {
    form: {
      email,
      first_name: names.first_name,
      last_name: names.last_name,
      billing,
      shipping,
      shipping_method_id: physical ? (body.fc_selected_shipping_method ?? null) : null,
      payment_method: text(body.payment_method),
      notes,
      create_account: !user && wantsAccount,
      typed_in: [
        ...(body.billing_address_id === undefined ? (['billing'] as const) : []),
        ...(shipping && body.shipping_address_id === undefined ? (['shipping'] as const) : []),
      ],
      user_tz: userTz || null,
      utm: Object.fromEntries(UTM_FIELDS.map((field) => [field, text(body[field])])) as Record<UtmField, string>,
    },
    errors,
  };
}
