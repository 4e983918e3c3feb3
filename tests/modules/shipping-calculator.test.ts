/**
 * The shipping calculator (src/modules/shipping/calculator.ts): pure functions, no database.
 *
 * - `matchZone(zones, {country, state})`: the first country zone by position, then id, that covers the
 *   destination (its states for that country, if it lists any, include the state); else the rest-of-world zone;
 *   else null. Codes are case-insensitive.
 * - `availableMethods(zones, methods, destination, items)` → `{required, zone, methods}`: the matched zone's active
 *   methods, by position then id, each with `shipping_charge` in cents. `required: false` (and no methods) when no
 *   line is physical.
 */
import { availableMethods, matchZone, type MethodRule, type ZoneRule } from '../../src/modules/shipping/calculator';
import type { ShippingItem } from '../../src/modules/shipping/types';

type Zone = ZoneRule & { name: string };
type Method = MethodRule & { title: string };

const zone = (id: number, name: string, countries: string[], extra: Partial<Zone> = {}): Zone => ({
  id,
  name,
  countries,
  states: [],
  is_rest_of_world: 0,
  position: 0,
  ...extra,
});

const method = (id: number, zone_id: number, title: string, extra: Partial<Method> = {}): Method => ({
  id,
  zone_id,
  title,
  charge_type: 'flat_rate',
  charge_amount: 0,
  free_above: null,
  status: 'active',
  position: 0,
  ...extra,
});

// Deliberately not in position order: the calculator sorts.
const ZONES: Zone[] = [
  zone(5, 'Rest of world', [], { is_rest_of_world: 1, position: 0 }),
  zone(6, 'Europe', ['DE', 'FR', 'AT'], { position: 5 }),
  zone(2, 'United States', ['US'], { position: 1 }),
  zone(1, 'California', ['US'], { states: ['US:CA'], position: 0 }),
  zone(3, 'United Kingdom', ['GB'], { position: 2 }),
  zone(4, 'Germany', ['DE'], { position: 3 }),
];

const METHODS: Method[] = [
  method(10, 1, 'California courier', { charge_amount: 500 }),
  method(11, 2, 'US standard', { charge_amount: 800, position: 1 }),
  method(12, 2, 'US per item', { charge_type: 'per_item', charge_amount: 150, position: 2 }),
  method(13, 2, 'US free over $100', { charge_type: 'free', free_above: 10000, position: 0 }),
  method(14, 2, 'US express (paused)', { charge_amount: 2500, status: 'inactive' }),
  method(21, 3, 'UK free', { charge_type: 'free', position: 1 }),
  method(20, 3, 'Royal Mail', { charge_amount: 399, position: 1 }),
  method(30, 4, 'DHL', { charge_type: 'per_item', charge_amount: 200 }),
  method(40, 6, 'Europe parcel', { charge_amount: 1500 }),
  method(50, 5, 'International', { charge_amount: 3000 }),
];

const physical = (quantity: number, unit_price: number): ShippingItem => ({ quantity, unit_price, fulfillment_type: 'physical' });
const digital = (quantity: number, unit_price: number): ShippingItem => ({ quantity, unit_price, fulfillment_type: 'digital' });

/** Two physical items of 25.00 and an e-book: physical quantity 2, physical subtotal 50.00. */
const CART = [physical(2, 2500), digital(1, 1000)];

describe('matchZone', () => {
  it.each([
    ['US', 'CA', 'California'],
    ['US', 'NY', 'United States'],
    ['US', '', 'United States'],
    ['US', null, 'United States'],
    ['us', 'ca', 'California'],
    [' Us ', 'us:ca', 'California'],
    ['US', 'US:TX', 'United States'],
    ['GB', '', 'United Kingdom'],
    ['gb', 'ENG', 'United Kingdom'],
    ['DE', 'BY', 'Germany'],
    ['FR', '', 'Europe'],
    ['at', '', 'Europe'],
    ['JP', '13', 'Rest of world'],
    ['ZZ', '', 'Rest of world'],
  ])('%j / %j → %s', (country, state, expected) => {
    expect(matchZone(ZONES, { country, state })?.name).toBe(expected);
  });

  it('matches nothing for a blank country', () => {
    expect(matchZone(ZONES, { country: '  ', state: 'CA' })).toBeNull();
  });

  it('without a rest-of-world zone, an uncovered country matches nothing', () => {
    const zones = ZONES.filter((z) => !z.is_rest_of_world);
    expect(matchZone(zones, { country: 'JP' })).toBeNull();
    expect(matchZone(zones, { country: 'US', state: 'CA' })?.name).toBe('California');
  });

  it('tries zones by position, then id; the rest-of-world zone comes last whatever its position', () => {
    const zones = [
      zone(9, 'US later id', ['US'], { position: 1 }),
      zone(8, 'US earlier id', ['US'], { position: 1 }),
      zone(7, 'US after', ['US'], { position: 2 }),
      zone(1, 'World', [], { is_rest_of_world: 1, position: 0 }),
    ];
    expect(matchZone(zones, { country: 'US' })?.name).toBe('US earlier id');
    expect(matchZone(zones, { country: 'CA' })?.name).toBe('World');
  });

  it('applies a zone’s states only to their own country', () => {
    const zones = [zone(1, 'New York and Canada', ['US', 'CA'], { states: ['US:NY'] }), zone(2, 'Elsewhere', [], { is_rest_of_world: 1 })];
    expect(matchZone(zones, { country: 'CA', state: 'ON' })?.name).toBe('New York and Canada');
    expect(matchZone(zones, { country: 'US', state: 'NY' })?.name).toBe('New York and Canada');
    expect(matchZone(zones, { country: 'US', state: 'TX' })?.name).toBe('Elsewhere');
    expect(matchZone(zones, { country: 'US' })?.name).toBe('Elsewhere');
  });
});

describe('availableMethods', () => {
  const priced = (country: string, state: string, items: ShippingItem[], zones = ZONES) => {
    const quote = availableMethods(zones, METHODS, { country, state }, items);
    return { required: quote.required, zone: quote.zone?.name ?? null, methods: quote.methods.map((m) => [m.title, m.shipping_charge]) };
  };

  it.each<[string, string, string, ShippingItem[], Array<[string, number]>]>([
    ['California: its own zone only', 'US', 'CA', CART, [['California courier', 500]]],
    [
      'rest of the US: active methods by position; free not reached; per item × 2',
      'US',
      'NY',
      CART,
      [
        ['US standard', 800],
        ['US per item', 300],
      ],
    ],
    [
      'free shipping at exactly the threshold (equal qualifies)',
      'US',
      'TX',
      [physical(4, 2500)],
      [
        ['US free over $100', 0],
        ['US standard', 800],
        ['US per item', 600],
      ],
    ],
    [
      'one cent below the threshold: no free shipping',
      'US',
      'TX',
      [physical(1, 9999)],
      [
        ['US standard', 800],
        ['US per item', 150],
      ],
    ],
    [
      'digital lines do not count towards the threshold',
      'US',
      'TX',
      [physical(1, 9000), digital(1, 5000)],
      [
        ['US standard', 800],
        ['US per item', 150],
      ],
    ],
    [
      'per item counts only the physical quantity',
      'US',
      'TX',
      [physical(3, 100), digital(5, 100)],
      [
        ['US standard', 800],
        ['US per item', 450],
      ],
    ],
    [
      'GB: free without a threshold; ties on position by id',
      'GB',
      '',
      CART,
      [
        ['Royal Mail', 399],
        ['UK free', 0],
      ],
    ],
    ['DE: the Germany zone (position 3) wins over Europe (position 5)', 'DE', '', CART, [['DHL', 400]]],
    ['FR: Europe', 'FR', '', CART, [['Europe parcel', 1500]]],
    ['unknown country: rest of world', 'JP', '13', CART, [['International', 3000]]],
    [
      'lower-case input',
      'gb',
      'eng',
      CART,
      [
        ['Royal Mail', 399],
        ['UK free', 0],
      ],
    ],
  ])('%s', (_name, country, state, items, expected) => {
    const result = priced(country, state, items);
    expect(result.required).toBe(true);
    expect(result.methods).toEqual(expected);
  });

  it('answers the zone it matched, and the methods keep their own fields', () => {
    const quote = availableMethods(ZONES, METHODS, { country: 'US', state: 'CA' }, CART);
    expect(quote.zone?.name).toBe('California');
    expect(quote.methods).toEqual([{ ...METHODS[0], shipping_charge: 500 }]);
  });

  it.each([
    ['a digital-only cart', [digital(2, 1500)]],
    ['an empty cart', []],
    ['physical lines of quantity 0', [physical(0, 1500), digital(1, 100)]],
  ])('%s needs no shipping: {required: false, zone: null, methods: []}', (_name, items) => {
    expect(availableMethods(ZONES, METHODS, { country: 'US', state: 'CA' }, items)).toEqual({ required: false, zone: null, methods: [] });
  });

  it('no zone for the destination: shipping is required but nothing is offered', () => {
    expect(
      priced(
        'JP',
        '',
        CART,
        ZONES.filter((z) => !z.is_rest_of_world),
      ),
    ).toEqual({ required: true, zone: null, methods: [] });
  });

  it('a zone whose methods are all inactive offers nothing', () => {
    const methods = METHODS.map((m) => (m.zone_id === 3 ? { ...m, status: 'inactive' as const } : m));
    expect(availableMethods(ZONES, methods, { country: 'GB' }, CART)).toMatchObject({ required: true, zone: { name: 'United Kingdom' }, methods: [] });
  });

  it.each([
    ['a fractional unit price', [physical(1, 10.5)]],
    ['a negative quantity', [physical(-1, 1000)]],
    ['a fractional quantity', [physical(1.5, 1000)]],
  ])('refuses %s (integer cents only)', (_name, items) => {
    expect(() => availableMethods(ZONES, METHODS, { country: 'GB' }, items)).toThrow(RangeError);
  });

  it('does not change its inputs', () => {
    const zones = structuredClone(ZONES);
    const methods = structuredClone(METHODS);
    availableMethods(zones, methods, { country: 'US', state: 'TX' }, [physical(4, 2500)]);
    expect(zones).toEqual(ZONES);
    expect(methods).toEqual(METHODS);
  });
});
