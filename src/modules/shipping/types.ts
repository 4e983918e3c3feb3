export type ChargeType = 'flat_rate' | 'free' | 'per_item';
export const CHARGE_TYPES: ChargeType[] = ['flat_rate', 'free', 'per_item'];

export type ShippingMethodStatus = 'active' | 'inactive';
export const SHIPPING_METHOD_STATUSES: ShippingMethodStatus[] = ['active', 'inactive'];

export interface ShippingZone {
  id: number;
  name: string;
  /** ISO 3166-1 alpha-2 codes, upper case; empty for the rest-of-world zone. */
  countries: string[];
  /** State codes as `CC:STATE` (e.g. `US:CA`); a country of the zone with none listed here ships to all its states. */
  states: string[];
  is_rest_of_world: 0 | 1;
  position: number;
  /** The zone's methods (position, then id) where the zone is presented with them. */
  methods?: ShippingMethod[];
  created_at: string;
  updated_at: string;
}

/** The spec's shipping method (checkout): `id, title, charge_type, charge_amount, status, countries, states`. */
export interface ShippingMethod {
  id: number;
  zone_id: number;
  title: string;
  charge_type: ChargeType;
  /** Cents: the flat amount, or the amount per physical item; always 0 for `free`. */
  charge_amount: number;
  /** For `free`: only offered when the physical subtotal reaches this many cents; null = always. Null for the other types. */
  free_above: number | null;
  status: ShippingMethodStatus;
  /** The zone's countries (empty for the rest-of-world zone). */
  countries: string[];
  /** The zone's states as plain state codes (`US:CA` → `CA`); empty means no state restriction. */
  states: string[];
  position: number;
  created_at: string;
  updated_at: string;
}

/** Where a cart ships to. Codes are matched case-insensitively; `state` may be `CA` or `US:CA`. */
export interface ShippingDestination {
  country: string;
  state?: string | null;
}

/** One cart line as the calculator sees it: integer quantity and unit price in cents. */
export interface ShippingItem {
  quantity: number;
  unit_price: number;
  fulfillment_type: 'physical' | 'digital';
}

/** A method offered for a destination and cart, with what it costs (`shipping_charge`, cents). */
export type PricedShippingMethod<M extends ShippingMethod = ShippingMethod> = M & { shipping_charge: number };
