/**
 * The shipping calculator: which zone a destination falls in, which of its methods a cart may use and what each
 * costs. Pure: no database, no hooks, no clock; the service loads the zones and methods and applies the
 * `store/shipping/available_methods` filter around it. All amounts are integer cents.
 *
 * Rules
 * - Zone matching (`matchZone`): codes are compared upper-cased and trimmed. Zones are tried by `position`, then
 *   `id`. A zone matches when its `countries` include the country and, if it lists states of that country
 *   (`CC:STATE`), one of them is the destination's state (a zone without states for that country takes every
 *   state, and a destination without a state only matches such zones). When no country zone matches, the
 *   rest-of-world zone does; without one, nothing matches. A blank country matches nothing.
 * - Methods (`availableMethods`): only the matched zone's `active` methods, by `position` then `id`, priced:
 *   `flat_rate` → `charge_amount`; `per_item` → `charge_amount` × the physical quantity; `free` → 0, offered only
 *   when `free_above` is null or the physical subtotal (Σ `unit_price` × `quantity` of physical lines) is at
 *   least `free_above` (equal qualifies).
 * - A cart with no physical quantity (digital only, empty, or physical lines of quantity 0) needs no shipping:
 *   `{required: false, zone: null, methods: []}`. Otherwise `required` is true and `methods` may still be empty (no zone, or no usable
 *   method): the caller must then refuse to ship there.
 */
import type { ShippingDestination, ShippingItem, ShippingMethod, ShippingZone } from './types';

/** What the calculator reads of a zone. */
export type ZoneRule = Pick<ShippingZone, 'id' | 'countries' | 'states' | 'is_rest_of_world' | 'position'>;
/** What the calculator reads of a method. */
export type MethodRule = Pick<ShippingMethod, 'id' | 'zone_id' | 'charge_type' | 'charge_amount' | 'free_above' | 'status' | 'position'>;

/** What `availableMethods` answers. */
export interface ShippingQuote<Z extends ZoneRule = ZoneRule, M extends MethodRule = MethodRule> {
  /** False when no line is physical: nothing ships, `zone` is null and `methods` empty, and no method is needed. */
  required: boolean;
  /** The zone the destination falls in; null when none covers it (or shipping is not required). */
  zone: Z | null;
  /** The methods the cart may choose, by position then id, each with its `shipping_charge` in cents. */
  methods: Array<M & { shipping_charge: number }>;
}

/** The physical part of a cart: total quantity and subtotal (cents). */
export interface PhysicalTotals {
  quantity: number;
  subtotal: number;
}

const code = (value: string | null | undefined): string => (value ?? '').trim().toUpperCase();

function assertInteger(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer, got ${value}`);
}

/** Upper-cased country and state; a state given as `US:CA` for country `US` becomes `CA`. */
export function normalizeDestination(destination: ShippingDestination): { country: string; state: string } {
  const country = code(destination.country);
  let state = code(destination.state);
  if (country && state.startsWith(`${country}:`)) state = state.slice(country.length + 1);
  return { country, state };
}

/** Zones in the order they are tried (and listed): position, then id; the rest-of-world zone last. */
export function byZoneOrder(a: ZoneRule, b: ZoneRule): number {
  return a.is_rest_of_world - b.is_rest_of_world || a.position - b.position || a.id - b.id;
}

/** Methods in the order they are offered: position, then id. */
export function byMethodOrder(a: MethodRule, b: MethodRule): number {
  return a.position - b.position || a.id - b.id;
}

function covers(zone: ZoneRule, country: string, state: string): boolean {
  if (!zone.countries.some((c) => code(c) === country)) return false;
  const prefix = `${country}:`;
  const states = zone.states.map(code).filter((s) => s.startsWith(prefix));
  return states.length === 0 || (state !== '' && states.includes(prefix + state));
}

/** The zone a destination falls in: the first country zone that covers it, else the rest-of-world zone, else null. */
export function matchZone<Z extends ZoneRule>(zones: readonly Z[], destination: ShippingDestination): Z | null {
  const { country, state } = normalizeDestination(destination);
  if (!country) return null;
  const ordered = [...zones].sort(byZoneOrder);
  return ordered.find((zone) => !zone.is_rest_of_world && covers(zone, country, state)) ?? ordered.find((zone) => zone.is_rest_of_world) ?? null;
}

/** Quantity and subtotal of the physical lines; throws a RangeError on a quantity or price that is not whole cents. */
export function physicalTotals(items: readonly ShippingItem[]): PhysicalTotals {
  let quantity = 0;
  let subtotal = 0;
  for (const item of items) {
    assertInteger(item.quantity, 'quantity');
    assertInteger(item.unit_price, 'unit_price');
    if (item.fulfillment_type !== 'physical') continue;
    quantity += item.quantity;
    subtotal += item.unit_price * item.quantity;
  }
  assertInteger(subtotal, 'physical subtotal');
  return { quantity, subtotal };
}

/** What a method costs for the physical part of a cart (cents), whether or not it is offered. */
export function chargeFor(method: MethodRule, totals: PhysicalTotals): number {
  assertInteger(method.charge_amount, 'charge_amount');
  const charge = method.charge_type === 'free' ? 0 : method.charge_type === 'per_item' ? method.charge_amount * totals.quantity : method.charge_amount;
  assertInteger(charge, 'shipping charge');
  return charge;
}

/** Whether a method may be chosen for a cart: active, and for `free` the threshold reached. */
export function isOffered(method: MethodRule, totals: PhysicalTotals): boolean {
  if (method.status !== 'active') return false;
  if (method.charge_type === 'free' && method.free_above !== null) return totals.subtotal >= method.free_above;
  return true;
}

/** The methods a cart may use to ship to `destination`, priced. See the rules at the top of this file. */
export function availableMethods<Z extends ZoneRule, M extends MethodRule>(
  zones: readonly Z[],
  methods: readonly M[],
  destination: ShippingDestination,
  items: readonly ShippingItem[],
): ShippingQuote<Z, M> {
  const totals = physicalTotals(items);
  if (!items.some((item) => item.fulfillment_type === 'physical' && item.quantity > 0)) return { required: false, zone: null, methods: [] };
  const zone = matchZone(zones, destination);
  if (!zone) return { required: true, zone: null, methods: [] };
  const offered = methods
    .filter((method) => method.zone_id === zone.id && isOffered(method, totals))
    .sort(byMethodOrder)
    .map((method) => ({ ...method, shipping_charge: chargeFor(method, totals) }));
  return { required: true, zone, methods: offered };
}
