/**
 * The tax calculator (`src/modules/tax-engine/calculator.ts`) on hand-checked cases, after the location matching
 * (`location.ts`) the filter runs before it. Amounts are minor units (cents; yen for JPY). Each case lists every
 * line's tax, the shipping tax and the tax by rate (name, on the goods, on shipping); rates that came to 0 are not
 * listed. Then properties over random carts: the lines sum to `tax_total`, the rates to both totals, and tax contained
 * in a price never exceeds it.
 */
import fc from 'fast-check';
import type { TaxAddress } from '../../src/modules/orders/totals';
import { calculateTax } from '../../src/modules/tax-engine/calculator';
import { matchOverrides, matchRates, postcodeMatches } from '../../src/modules/tax-engine/location';
import type { EngineOverride, EngineRate, TaxCalculationInput } from '../../src/modules/tax-engine/types';

const CLASSES = [
  { id: 1, slug: 'standard' },
  { id: 2, slug: 'reduced' },
  { id: 3, slug: 'zero' },
];

let serial = 100;
function rate(over: Partial<EngineRate>): EngineRate {
  return {
    id: ++serial,
    class_id: 0,
    country: 'US',
    state: '',
    city: '',
    postcode: '',
    rate: '0',
    name: 'Tax',
    priority: 1,
    is_compound: 0,
    for_shipping: null,
    for_order: 0,
    ...over,
  };
}

function override(over: Partial<EngineOverride>): EngineOverride {
  return {
    id: ++serial,
    country: 'CA',
    state: '',
    city: '',
    postcode: '',
    category_id: 7,
    category_name: 'Books',
    tax_label: '',
    override_state_tax: 'no',
    rate: '0',
    class_id: 0,
    ...over,
  };
}

// United States: California and two of its cities.
const CA_STATE = rate({ state: 'CA', rate: '7.2500', name: 'CA State' });
const LA_CITIES = rate({ state: 'CA', city: 'Los Angeles; Pasadena ,Burbank', rate: '1.0000', name: 'LA County', priority: 2 });
const US_FEDERAL = rate({ rate: '2.0000', name: 'US Federal' });
const CA_REPLACES = rate({ state: 'CA', rate: '7.2500', name: 'CA State', for_order: 1 });
const CA_SHIP_5 = rate({ state: 'CA', rate: '7.2500', name: 'CA State', for_shipping: '5.0000' });
const CA_SHIP_0 = rate({ state: 'CA', rate: '7.2500', name: 'CA State', for_shipping: '0.0000' });
const BEVERLY_HILLS = rate({ state: 'CA', postcode: '90001...90099', rate: '1.5000', name: 'Range' });
const WILDCARD = rate({ state: 'CA', postcode: '902*', rate: '0.5000', name: 'Wildcard' });

// Canada: GST, British Columbia's PST, Quebec's QST, Ontario's HST, and a historical compound PST (PEI before 2013).
const GST = rate({ country: 'CA', rate: '5.0000', name: 'GST' });
const BC_PST = rate({ country: 'CA', state: 'BC', rate: '7.0000', name: 'PST', priority: 2 });
const QC_QST = rate({ country: 'CA', state: 'QC', rate: '9.9750', name: 'QST', priority: 2 });
const ON_HST = rate({ country: 'CA', state: 'ON', rate: '13.0000', name: 'HST', for_order: 1 });
const PE_PST = rate({ country: 'CA', state: 'PE', rate: '10.0000', name: 'PST', priority: 2, is_compound: 1 });

// Germany: VAT by class.
const DE_STANDARD = rate({ country: 'DE', class_id: 1, rate: '19.0000', name: 'MwSt 19%' });
const DE_REDUCED = rate({ country: 'DE', class_id: 2, rate: '7.0000', name: 'MwSt 7%' });
const DE_ZERO = rate({ country: 'DE', class_id: 3, rate: '0.0000', name: 'MwSt 0%' });
const DE_VAT = [DE_STANDARD, DE_REDUCED, DE_ZERO];

// Japan: consumption tax 10%, 8% reduced (food).
const JP_STANDARD = rate({ country: 'JP', class_id: 1, rate: '10.0000', name: '消費税 10%' });
const JP_REDUCED = rate({ country: 'JP', class_id: 2, rate: '8.0000', name: '消費税 8%' });

const LOS_ANGELES: TaxAddress = { country: 'US', state: 'CA', city: 'Los Angeles', postcode: '90012' };
const SAN_DIEGO: TaxAddress = { country: 'US', state: 'CA', city: 'San Diego', postcode: '92101' };
const VANCOUVER: TaxAddress = { country: 'CA', state: 'BC', city: 'Vancouver', postcode: 'V6B 1A1' };
const MONTREAL: TaxAddress = { country: 'CA', state: 'QC', city: 'Montréal', postcode: 'H2Y 1C6' };
const TORONTO: TaxAddress = { country: 'CA', state: 'ON', city: 'Toronto', postcode: 'M5H 2N2' };
const CALGARY: TaxAddress = { country: 'CA', state: 'AB', city: 'Calgary', postcode: 'T2P 1J9' };
const CHARLOTTETOWN: TaxAddress = { country: 'CA', state: 'PE', city: 'Charlottetown', postcode: 'C1A 1A1' };
const BERLIN: TaxAddress = { country: 'DE', state: '', city: 'Berlin', postcode: '10115' };
const TOKYO: TaxAddress = { country: 'JP', state: '13', city: 'Chiyoda', postcode: '100-0001' };

type Line = [amount: number, taxClass?: string | null, categories?: number[]];

interface Case {
  name: string;
  to: TaxAddress;
  rates: EngineRate[];
  overrides?: EngineOverride[];
  lines: Line[];
  shipping?: [amount: number, taxClass?: string];
  inclusive?: boolean;
  rounding?: 'line' | 'total';
  /** Each line's tax, the shipping tax, and `[name, order_tax, shipping_tax]` by rate. */
  expected: { lines: number[]; shipping: number; rates: Array<[string, number, number]> };
}

function inputOf(c: Pick<Case, 'to' | 'rates' | 'overrides' | 'lines' | 'shipping' | 'inclusive' | 'rounding'>): TaxCalculationInput {
  return {
    prices_include_tax: c.inclusive ?? false,
    rounding: c.rounding ?? 'line',
    country: c.to.country,
    classes: CLASSES,
    lines: c.lines.map(([amount, taxClass = null, categories = []], cart_index) => ({ cart_index, amount, tax_class: taxClass, category_ids: categories })),
    shipping: { amount: c.shipping?.[0] ?? 0, tax_class: c.shipping?.[1] ?? 'standard' },
    rates: matchRates(c.rates, c.to),
    overrides: matchOverrides(c.overrides ?? [], c.to),
  };
}

const cases: Case[] = [
  // United States: state and city rates
  {
    name: 'CA state rate 7.25% on $100.00',
    to: SAN_DIEGO,
    rates: [CA_STATE],
    lines: [[10000]],
    expected: { lines: [725], shipping: 0, rates: [['CA State', 725, 0]] },
  },
  {
    name: 'CA 7.25% + a Los Angeles city rate 1% add up',
    to: LOS_ANGELES,
    rates: [CA_STATE, LA_CITIES],
    lines: [[10000]],
    expected: {
      lines: [825],
      shipping: 0,
      rates: [
        ['CA State', 725, 0],
        ['LA County', 100, 0],
      ],
    },
  },
  {
    name: 'the city rate does not apply outside its city list',
    to: SAN_DIEGO,
    rates: [CA_STATE, LA_CITIES],
    lines: [[10000]],
    expected: { lines: [725], shipping: 0, rates: [['CA State', 725, 0]] },
  },
  {
    name: 'city lists: separated by ; or , trimmed, any case',
    to: { ...LOS_ANGELES, city: '  PASADENA ' },
    rates: [CA_STATE, LA_CITIES],
    lines: [[10000]],
    expected: {
      lines: [825],
      shipping: 0,
      rates: [
        ['CA State', 725, 0],
        ['LA County', 100, 0],
      ],
    },
  },
  {
    name: 'the state code matches in any case',
    to: { ...SAN_DIEGO, state: 'ca' },
    rates: [CA_STATE],
    lines: [[2000]],
    expected: { lines: [145], shipping: 0, rates: [['CA State', 145, 0]] },
  },
  {
    name: 'another state pays nothing',
    to: { country: 'US', state: 'OR', city: 'Portland', postcode: '97201' },
    rates: [CA_STATE],
    lines: [[10000]],
    expected: { lines: [0], shipping: 0, rates: [] },
  },
  {
    name: '$19.99 at 7.25% = 144.9275 → 145',
    to: SAN_DIEGO,
    rates: [CA_STATE],
    lines: [[1999]],
    expected: { lines: [145], shipping: 0, rates: [['CA State', 145, 0]] },
  },
  {
    name: 'a country rate and a state rate add up',
    to: SAN_DIEGO,
    rates: [US_FEDERAL, CA_STATE],
    lines: [[10000]],
    expected: {
      lines: [925],
      shipping: 0,
      rates: [
        ['CA State', 725, 0],
        ['US Federal', 200, 0],
      ],
    },
  },
  {
    name: 'for_order: the state rate replaces the country rate',
    to: SAN_DIEGO,
    rates: [US_FEDERAL, CA_REPLACES],
    lines: [[10000]],
    expected: { lines: [725], shipping: 0, rates: [['CA State', 725, 0]] },
  },
  {
    name: 'for_order only replaces where the state rate matches',
    to: { country: 'US', state: 'NV', city: 'Reno', postcode: '89501' },
    rates: [US_FEDERAL, CA_REPLACES],
    lines: [[10000]],
    expected: { lines: [200], shipping: 0, rates: [['US Federal', 200, 0]] },
  },

  // Half up, and rounding per line or per order
  {
    name: 'half up at exactly .5: 10 at 5% = 0.5 → 1; 30 → 1.5 → 2; 50 → 2.5 → 3',
    to: SAN_DIEGO,
    rates: [rate({ state: 'CA', rate: '5', name: 'Five' })],
    lines: [[10], [30], [50]],
    expected: { lines: [1, 2, 3], shipping: 0, rates: [['Five', 6, 0]] },
  },
  {
    name: 'line rounding: three lines of 0.5 round to 1 each',
    to: SAN_DIEGO,
    rates: [rate({ state: 'CA', rate: '5', name: 'Five' })],
    lines: [[10], [10], [10]],
    expected: { lines: [1, 1, 1], shipping: 0, rates: [['Five', 3, 0]] },
  },
  {
    name: 'total rounding: 1.5 rounds once to 2, allocated to the first lines',
    to: SAN_DIEGO,
    rates: [rate({ state: 'CA', rate: '5', name: 'Five' })],
    lines: [[10], [10], [10]],
    rounding: 'total',
    expected: { lines: [1, 1, 0], shipping: 0, rates: [['Five', 2, 0]] },
  },
  {
    name: 'line rounding: 3 × $10.10 at 7.25% (73.225 each) = 3 × 73',
    to: SAN_DIEGO,
    rates: [CA_STATE],
    lines: [[1010], [1010], [1010]],
    expected: { lines: [73, 73, 73], shipping: 0, rates: [['CA State', 219, 0]] },
  },
  {
    name: 'total rounding: 3 × $10.10 at 7.25% = 219.675 → 220',
    to: SAN_DIEGO,
    rates: [CA_STATE],
    lines: [[1010], [1010], [1010]],
    rounding: 'total',
    expected: { lines: [74, 73, 73], shipping: 0, rates: [['CA State', 220, 0]] },
  },
  {
    name: 'total rounding with two rates: each rate rounded once, lines get their share of each',
    to: LOS_ANGELES,
    rates: [CA_STATE, LA_CITIES],
    lines: [[1010], [2020]],
    rounding: 'total',
    // CA: 73.225 + 146.45 = 219.675 → 220 (73.33 : 146.67 → 73, 147); city: 10.1 + 20.2 = 30.3 → 30 (10, 20)
    expected: {
      lines: [83, 167],
      shipping: 0,
      rates: [
        ['CA State', 220, 0],
        ['LA County', 30, 0],
      ],
    },
  },

  {
    name: 'total rounding spreads the order’s extra cents over the lines: 4 × 0.01 gross with three 25% rates',
    to: SAN_DIEGO,
    rates: ['A', 'B', 'C'].map((name) => rate({ state: 'CA', rate: '25', name })),
    lines: [[1], [1], [1], [1]],
    inclusive: true,
    rounding: 'total',
    // each rate: 4 × 1 × 0.25 / 1.75 = 0.571 → 1; the order's 3 over four equal lines
    expected: {
      lines: [1, 1, 1, 0],
      shipping: 0,
      rates: [
        ['A', 1, 0],
        ['B', 1, 0],
        ['C', 1, 0],
      ],
    },
  },

  // Canada: GST with PST, QST, HST, and a compound PST
  {
    name: 'BC: GST 5% + PST 7%',
    to: VANCOUVER,
    rates: [GST, BC_PST, QC_QST, ON_HST, PE_PST],
    lines: [[10000]],
    expected: {
      lines: [1200],
      shipping: 0,
      rates: [
        ['GST', 500, 0],
        ['PST', 700, 0],
      ],
    },
  },
  {
    name: 'QC: GST 5% + QST 9.975% (not compound): 997.5 → 998',
    to: MONTREAL,
    rates: [GST, BC_PST, QC_QST, ON_HST, PE_PST],
    lines: [[10000]],
    expected: {
      lines: [1498],
      shipping: 0,
      rates: [
        ['GST', 500, 0],
        ['QST', 998, 0],
      ],
    },
  },
  {
    name: 'QC on $19.99: GST 99.95 → 100, QST 199.40 → 199',
    to: MONTREAL,
    rates: [GST, QC_QST],
    lines: [[1999]],
    expected: {
      lines: [299],
      shipping: 0,
      rates: [
        ['GST', 100, 0],
        ['QST', 199, 0],
      ],
    },
  },
  {
    name: 'ON: HST 13% replaces GST (for_order)',
    to: TORONTO,
    rates: [GST, BC_PST, QC_QST, ON_HST, PE_PST],
    lines: [[10000]],
    expected: { lines: [1300], shipping: 0, rates: [['HST', 1300, 0]] },
  },
  {
    name: 'AB: GST only',
    to: CALGARY,
    rates: [GST, BC_PST, QC_QST, ON_HST, PE_PST],
    lines: [[10000]],
    expected: { lines: [500], shipping: 0, rates: [['GST', 500, 0]] },
  },
  {
    name: 'PEI compound PST 10% applies to the amount plus GST: 500 + 1050',
    to: CHARLOTTETOWN,
    rates: [GST, PE_PST],
    lines: [[10000]],
    expected: {
      lines: [1550],
      shipping: 0,
      rates: [
        ['GST', 500, 0],
        ['PST', 1050, 0],
      ],
    },
  },
  {
    name: 'PEI compound on $19.99: GST 99.95 → 100, PST (1999 + 99.95) × 10% = 209.895 → 210',
    to: CHARLOTTETOWN,
    rates: [GST, PE_PST],
    lines: [[1999]],
    expected: {
      lines: [310],
      shipping: 0,
      rates: [
        ['GST', 100, 0],
        ['PST', 210, 0],
      ],
    },
  },
  {
    name: 'PEI prices with tax in: 115.50 gross is 100.00 net (× 1.05 × 1.10)',
    to: CHARLOTTETOWN,
    rates: [GST, PE_PST],
    lines: [[11550]],
    inclusive: true,
    expected: {
      lines: [1550],
      shipping: 0,
      rates: [
        ['GST', 500, 0],
        ['PST', 1050, 0],
      ],
    },
  },
  {
    name: 'PEI inclusive $10.00: GST 50/1.155 = 43.29 → 43, PST 105/1.155 = 90.91 → 91',
    to: CHARLOTTETOWN,
    rates: [GST, PE_PST],
    lines: [[1000]],
    inclusive: true,
    expected: {
      lines: [134],
      shipping: 0,
      rates: [
        ['GST', 43, 0],
        ['PST', 91, 0],
      ],
    },
  },
  {
    name: 'QC inclusive $100.00: factor 1.14975, GST 434.88 → 435, QST 867.58 → 868',
    to: MONTREAL,
    rates: [GST, QC_QST],
    lines: [[10000]],
    inclusive: true,
    expected: {
      lines: [1303],
      shipping: 0,
      rates: [
        ['GST', 435, 0],
        ['QST', 868, 0],
      ],
    },
  },
  {
    name: 'priorities order the chain, not ids: the compound rate (priority 2, lower id) comes after',
    to: SAN_DIEGO,
    rates: [
      rate({ state: 'CA', rate: '10', name: 'Second', priority: 2, is_compound: 1, id: 1 }),
      rate({ state: 'CA', rate: '5', name: 'First', priority: 1, id: 2 }),
    ],
    lines: [[10000]],
    expected: {
      lines: [1550],
      shipping: 0,
      rates: [
        ['First', 500, 0],
        ['Second', 1050, 0],
      ],
    },
  },

  // EU VAT with prices that contain it
  {
    name: 'DE inclusive 19%: 119.00 holds 19.00',
    to: BERLIN,
    rates: DE_VAT,
    lines: [[11900]],
    inclusive: true,
    expected: { lines: [1900], shipping: 0, rates: [['MwSt 19%', 1900, 0]] },
  },
  {
    name: 'DE inclusive 19% of 10.00: 1000 × 19 / 119 = 159.66 → 160',
    to: BERLIN,
    rates: DE_VAT,
    lines: [[1000]],
    inclusive: true,
    expected: { lines: [160], shipping: 0, rates: [['MwSt 19%', 160, 0]] },
  },
  {
    name: 'DE inclusive reduced class 7%: 10.70 holds 0.70',
    to: BERLIN,
    rates: DE_VAT,
    lines: [[1070, 'reduced']],
    inclusive: true,
    expected: { lines: [70], shipping: 0, rates: [['MwSt 7%', 70, 0]] },
  },
  {
    name: 'DE zero class 0%: no tax, no rate listed',
    to: BERLIN,
    rates: DE_VAT,
    lines: [[500, 'zero']],
    inclusive: true,
    expected: { lines: [0], shipping: 0, rates: [] },
  },
  {
    name: 'DE mixed cart inclusive: standard, reduced and zero lines, shipping at the standard class',
    to: BERLIN,
    rates: DE_VAT,
    lines: [
      [11900, 'standard'],
      [1070, 'reduced'],
      [500, 'zero'],
    ],
    shipping: [495],
    inclusive: true,
    // shipping 495 × 19 / 119 = 79.03 → 79
    expected: {
      lines: [1900, 70, 0],
      shipping: 79,
      rates: [
        ['MwSt 19%', 1900, 79],
        ['MwSt 7%', 70, 0],
      ],
    },
  },
  {
    name: 'DE exclusive 19% is added on top: 100.00 → 19.00',
    to: BERLIN,
    rates: DE_VAT,
    lines: [[10000, '']],
    expected: { lines: [1900], shipping: 0, rates: [['MwSt 19%', 1900, 0]] },
  },
  {
    name: 'an unknown class slug is the standard class',
    to: BERLIN,
    rates: DE_VAT,
    lines: [[10000, 'no-such-class']],
    expected: { lines: [1900], shipping: 0, rates: [['MwSt 19%', 1900, 0]] },
  },

  // Shipping
  {
    name: 'shipping at the rate when for_shipping is not set: 10.00 × 7.25% = 72.5 → 73',
    to: SAN_DIEGO,
    rates: [CA_STATE],
    lines: [[10000]],
    shipping: [1000],
    expected: { lines: [725], shipping: 73, rates: [['CA State', 725, 73]] },
  },
  {
    name: 'for_shipping 5% taxes shipping instead of the rate',
    to: SAN_DIEGO,
    rates: [CA_SHIP_5],
    lines: [[10000]],
    shipping: [1000],
    expected: { lines: [725], shipping: 50, rates: [['CA State', 725, 50]] },
  },
  {
    name: 'for_shipping 0: shipping is not taxed',
    to: SAN_DIEGO,
    rates: [CA_SHIP_0],
    lines: [[10000]],
    shipping: [1000],
    expected: { lines: [725], shipping: 0, rates: [['CA State', 725, 0]] },
  },
  {
    name: "shipping's own class: the reduced rate",
    to: BERLIN,
    rates: DE_VAT,
    lines: [[10000]],
    shipping: [1000, 'reduced'],
    expected: {
      lines: [1900],
      shipping: 70,
      rates: [
        ['MwSt 19%', 1900, 0],
        ['MwSt 7%', 0, 70],
      ],
    },
  },
  {
    name: 'shipping class tax_exempt: no shipping tax',
    to: BERLIN,
    rates: DE_VAT,
    lines: [[10000]],
    shipping: [1000, 'tax_exempt'],
    expected: { lines: [1900], shipping: 0, rates: [['MwSt 19%', 1900, 0]] },
  },
  {
    name: 'shipping compounds like goods: GST 50, PST (1000 + 50) × 10% = 105',
    to: CHARLOTTETOWN,
    rates: [GST, PE_PST],
    lines: [],
    shipping: [1000],
    expected: {
      lines: [],
      shipping: 155,
      rates: [
        ['GST', 0, 50],
        ['PST', 0, 105],
      ],
    },
  },

  // Category overrides
  {
    name: 'override rate 2.5% replaces the country-wide GST, PST stays (override_state_tax no)',
    to: VANCOUVER,
    rates: [GST, BC_PST],
    overrides: [override({ rate: '2.5', tax_label: 'Book GST' })],
    lines: [[10000, null, [7]]],
    expected: {
      lines: [950],
      shipping: 0,
      rates: [
        ['Book GST', 250, 0],
        ['PST', 700, 0],
      ],
    },
  },
  {
    name: 'override_state_tax yes: the override replaces every rate; named after the category without a label',
    to: VANCOUVER,
    rates: [GST, BC_PST],
    overrides: [override({ rate: '2.5', override_state_tax: 'yes' })],
    lines: [
      [10000, null, [7]],
      [10000, null, [8]],
    ],
    expected: {
      lines: [250, 1200],
      shipping: 0,
      rates: [
        ['Books', 250, 0],
        ['GST', 500, 0],
        ['PST', 700, 0],
      ],
    },
  },
  {
    name: 'an override with a class taxes the line as that class (DE books at 7%)',
    to: BERLIN,
    rates: DE_VAT,
    overrides: [override({ country: 'DE', class_id: 2, rate: '0' })],
    lines: [[10000, null, [7]], [10000]],
    expected: {
      lines: [700, 1900],
      shipping: 0,
      rates: [
        ['MwSt 7%', 700, 0],
        ['MwSt 19%', 1900, 0],
      ],
    },
  },
  {
    name: 'the most specific override wins (BC state one over the country one); elsewhere the country one',
    to: VANCOUVER,
    rates: [GST, BC_PST],
    overrides: [override({ rate: '3', tax_label: 'Country books' }), override({ state: 'BC', rate: '1', tax_label: 'BC books' })],
    lines: [[10000, null, [7]]],
    expected: {
      lines: [800],
      shipping: 0,
      rates: [
        ['BC books', 100, 0],
        ['PST', 700, 0],
      ],
    },
  },
  {
    name: 'outside BC the country-wide override applies',
    to: CALGARY,
    rates: [GST, BC_PST],
    overrides: [override({ rate: '3', tax_label: 'Country books' }), override({ state: 'BC', rate: '1', tax_label: 'BC books' })],
    lines: [[10000, null, [7]]],
    expected: { lines: [300], shipping: 0, rates: [['Country books', 300, 0]] },
  },
  {
    name: 'an override of another country does not apply',
    to: BERLIN,
    rates: DE_VAT,
    overrides: [override({ rate: '0', override_state_tax: 'yes' })],
    lines: [[10000, null, [7]]],
    expected: { lines: [1900], shipping: 0, rates: [['MwSt 19%', 1900, 0]] },
  },

  // Exempt lines, coupons, mixed carts
  {
    name: 'an exempt line pays nothing, even in an overridden category',
    to: VANCOUVER,
    rates: [GST, BC_PST],
    overrides: [override({ rate: '2.5' })],
    lines: [[10000, 'tax_exempt', [7]], [10000]],
    expected: {
      lines: [0, 1200],
      shipping: 0,
      rates: [
        ['GST', 500, 0],
        ['PST', 700, 0],
      ],
    },
  },
  {
    name: 'coupons before tax: $100.00 less a $10.00 coupon is taxed on 90.00 (652.5 → 653)',
    to: SAN_DIEGO,
    rates: [CA_STATE],
    lines: [[9000]],
    expected: { lines: [653], shipping: 0, rates: [['CA State', 653, 0]] },
  },
  {
    name: 'a line fully discounted pays nothing',
    to: SAN_DIEGO,
    rates: [CA_STATE],
    lines: [[0], [1000]],
    expected: { lines: [0, 73], shipping: 0, rates: [['CA State', 73, 0]] },
  },
  {
    name: 'class rates: a reduced-only rate and a no-class rate',
    to: SAN_DIEGO,
    rates: [rate({ state: 'CA', class_id: 2, rate: '1', name: 'Reduced only' }), rate({ state: 'CA', rate: '5', name: 'Everyone' })],
    lines: [[10000], [10000, 'reduced'], [10000, 'tax_exempt']],
    expected: {
      lines: [500, 600, 0],
      shipping: 0,
      rates: [
        ['Everyone', 1000, 0],
        ['Reduced only', 100, 0],
      ],
    },
  },

  // Zero-decimal currency: amounts are yen
  {
    name: 'JPY: ¥1,000 at 10% = ¥100; ¥1,234 food at 8% = 98.72 → ¥99',
    to: TOKYO,
    rates: [JP_STANDARD, JP_REDUCED],
    lines: [[1000], [1234, 'reduced']],
    expected: {
      lines: [100, 99],
      shipping: 0,
      rates: [
        ['消費税 10%', 100, 0],
        ['消費税 8%', 99, 0],
      ],
    },
  },
  {
    name: 'JPY inclusive: ¥1,100 holds ¥100',
    to: TOKYO,
    rates: [JP_STANDARD],
    lines: [[1100]],
    inclusive: true,
    expected: { lines: [100], shipping: 0, rates: [['消費税 10%', 100, 0]] },
  },

  // Postcodes: ranges, wildcards, lists
  {
    name: 'postcode range 90001...90099 includes 90012',
    to: LOS_ANGELES,
    rates: [CA_STATE, BEVERLY_HILLS],
    lines: [[10000]],
    expected: {
      lines: [875],
      shipping: 0,
      rates: [
        ['CA State', 725, 0],
        ['Range', 150, 0],
      ],
    },
  },
  {
    name: 'postcode range excludes 90100',
    to: { ...LOS_ANGELES, postcode: '90100' },
    rates: [CA_STATE, BEVERLY_HILLS],
    lines: [[10000]],
    expected: { lines: [725], shipping: 0, rates: [['CA State', 725, 0]] },
  },
  {
    name: 'postcode wildcard 902* matches 90210',
    to: { ...LOS_ANGELES, postcode: '90210' },
    rates: [CA_STATE, WILDCARD],
    lines: [[10000]],
    expected: {
      lines: [775],
      shipping: 0,
      rates: [
        ['CA State', 725, 0],
        ['Wildcard', 50, 0],
      ],
    },
  },
  {
    name: 'postcode wildcard 902* does not match 90310',
    to: { ...LOS_ANGELES, postcode: '90310' },
    rates: [CA_STATE, WILDCARD],
    lines: [[10000]],
    expected: { lines: [725], shipping: 0, rates: [['CA State', 725, 0]] },
  },
];

describe('calculateTax: golden cases', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const tax = calculateTax(inputOf(c));
    expect(tax.lines?.map((line) => line.tax_amount)).toEqual(c.expected.lines);
    expect(tax.lines?.map((line) => line.cart_index)).toEqual(c.lines.map((_line, i) => i));
    expect(tax.tax_total).toBe(c.expected.lines.reduce((a, b) => a + b, 0));
    expect(tax.shipping_tax).toBe(c.expected.shipping);
    expect(tax.rates?.map((share) => [share.name, share.order_tax, share.shipping_tax])).toEqual(c.expected.rates);
    expect(tax.inclusive).toBe(c.inclusive ?? false);
    expect(tax.tax_country).toBe(c.to.country);
  });
});

describe('calculateTax: the rate breakdown', () => {
  it('names each rate as a tax record needs it: the row, or the override with tax_rate_id null', () => {
    const over = override({ rate: '2.5', tax_label: 'Book GST' });
    const tax = calculateTax(inputOf({ to: VANCOUVER, rates: [GST, BC_PST], overrides: [over], lines: [[10000, null, [7]]], shipping: [1000] }));
    expect(tax.rates).toEqual([
      { tax_rate_id: null, override_id: over.id, name: 'Book GST', rate: '2.5', country: 'CA', state: '', is_compound: 0, order_tax: 250, shipping_tax: 0 },
      { tax_rate_id: BC_PST.id, name: 'PST', rate: '7.0000', country: 'CA', state: 'BC', is_compound: 0, order_tax: 700, shipping_tax: 70 },
      { tax_rate_id: GST.id, name: 'GST', rate: '5.0000', country: 'CA', state: '', is_compound: 0, order_tax: 0, shipping_tax: 50 },
    ]);
  });

  it('refuses a rate that is not a percentage of at most 4 decimals, and negative amounts', () => {
    const bad = rate({ state: 'CA', rate: '7.12345' });
    expect(() => calculateTax(inputOf({ to: SAN_DIEGO, rates: [bad], lines: [[100]] }))).toThrow(RangeError);
    expect(() => calculateTax(inputOf({ to: SAN_DIEGO, rates: [CA_STATE], lines: [[-100]] }))).toThrow(RangeError);
  });
});

describe('postcode matching', () => {
  it.each([
    ['90001...90099', '90001', true],
    ['90001...90099', '90099', true],
    ['90001...90099', '9005', false],
    ['90001...90099', '900050', false],
    ['SW1A*', 'sw1a 1aa', true],
    ['SW1A*', 'SW2A 1AA', false],
    ['sw1a 1aa', 'SW1A1AA', true],
    ['10115; 10117,10119', '10117', true],
    ['10115; 10117,10119', '10118', false],
    ['A...C', 'B7', true],
    ['A...C', 'D1', false],
    ['', '', true],
    ['90210', '', false],
  ])('%j matches %j: %s', (list, postcode, expected) => {
    expect(postcodeMatches(list, postcode)).toBe(expected);
  });
});

describe('calculateTax: properties', () => {
  // Up to 15% each: a line's rates (at most 3 and an override's) then add to less than 100%, the bound under which
  // rounding each rate half up cannot take more than the price holds.
  const percent = fc.integer({ min: 0, max: 150_000 }).map((units) => (units / 10_000).toFixed(4));
  const rateArb = fc.record({
    class_id: fc.constantFrom(0, 1, 2),
    state: fc.constantFrom('', 'CA'),
    rate: percent,
    priority: fc.integer({ min: 1, max: 3 }),
    is_compound: fc.constantFrom(0 as const, 1 as const),
    for_shipping: fc.option(percent),
    for_order: fc.constantFrom(0 as const, 1 as const),
  });
  const overrideArb = fc.record({
    category_id: fc.integer({ min: 1, max: 3 }),
    state: fc.constantFrom('', 'CA'),
    override_state_tax: fc.constantFrom('yes' as const, 'no' as const),
    rate: percent,
    class_id: fc.constantFrom(0, 0, 2),
  });
  const lineArb = fc.tuple(
    fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 5_000_000 })),
    fc.constantFrom(null, 'standard', 'reduced', 'tax_exempt'),
    fc.subarray([1, 2, 3]),
  ) as fc.Arbitrary<Line>;
  const cartArb = fc.record({
    rates: fc.array(rateArb, { maxLength: 3 }),
    overrides: fc.array(overrideArb, { maxLength: 2 }),
    lines: fc.array(lineArb, { maxLength: 20 }),
    shipping: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 100_000 })),
    inclusive: fc.boolean(),
    rounding: fc.constantFrom('line' as const, 'total' as const),
  });
  const inputFrom = (cart: typeof cartArb extends fc.Arbitrary<infer T> ? T : never) =>
    inputOf({
      to: SAN_DIEGO,
      rates: cart.rates.map((r) => rate({ ...r, country: 'US', name: `Rate ${r.rate}` })),
      overrides: cart.overrides.map((o) => override({ ...o, country: 'US' })),
      lines: cart.lines,
      shipping: [cart.shipping],
      inclusive: cart.inclusive,
      rounding: cart.rounding,
    });

  it('the lines sum to tax_total; the rates sum to tax_total and shipping_tax; every amount is a non-negative integer', () => {
    fc.assert(
      fc.property(cartArb, (cart) => {
        const tax = calculateTax(inputFrom(cart));
        const lines = tax.lines ?? [];
        const rates = tax.rates ?? [];
        expect(lines.reduce((a, line) => a + line.tax_amount, 0)).toBe(tax.tax_total);
        expect(rates.reduce((a, share) => a + share.order_tax, 0)).toBe(tax.tax_total);
        expect(rates.reduce((a, share) => a + share.shipping_tax, 0)).toBe(tax.shipping_tax);
        for (const amount of [...lines.map((line) => line.tax_amount), ...rates.flatMap((share) => [share.order_tax, share.shipping_tax])])
          expect(Number.isSafeInteger(amount) && amount >= 0).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('tax contained in a price never exceeds it (each line, shipping, and the order), rates adding to under 100%', () => {
    fc.assert(
      fc.property(cartArb, (cart) => {
        const input = inputFrom({ ...cart, inclusive: true });
        const tax = calculateTax(input);
        (tax.lines ?? []).forEach((line, i) => expect(line.tax_amount).toBeLessThanOrEqual(input.lines[i].amount));
        expect(tax.shipping_tax).toBeLessThanOrEqual(input.shipping.amount);
        expect(tax.tax_total).toBeLessThanOrEqual(input.lines.reduce((a, line) => a + line.amount, 0));
      }),
      { numRuns: 2000 },
    );
  });

  it('exempt lines and zero amounts pay nothing', () => {
    fc.assert(
      fc.property(cartArb, (cart) => {
        const input = inputFrom(cart);
        const tax = calculateTax(input);
        input.lines.forEach((line, i) => {
          if (line.tax_class === 'tax_exempt' || line.amount === 0) expect(tax.lines?.[i].tax_amount).toBe(0);
        });
      }),
      { numRuns: 300 },
    );
  });
});
