/**
 * The tax calculator: a pure function of the settings, the lines, shipping, and the rates and overrides already
 * matched to the destination (`location.ts`). Amounts are integer minor units of any currency.
 *
 * 1. A line's class: its slug (`null`/`''` and unknown slugs are `standard`); `tax_exempt` lines pay nothing.
 * 2. Its rates: the matched rates of its class or of no class (`class_id` 0), by priority then id. When one of them is
 *    for a state, city or postcode and has `for_order`, the country-wide rates are dropped (it replaces them);
 *    otherwise they add up.
 * 3. A category override (the most specific for one of the line's categories): with a class, the line is taxed as
 *    that class; else its rate comes first and replaces the country-wide rates (every rate with
 *    `override_state_tax: yes`), as a rate of its own (`tax_rate_id` null, `override_id`).
 * 4. Each rate's tax per unit: the rate, on the amount plus the tax before it when compound. Exclusive prices: tax =
 *    amount × that. Inclusive prices: the gross is net × (1 + Σ), so tax = gross × that / (1 + Σ) (one rate:
 *    gross × r / (100 + r)).
 * 5. Shipping: the rates of the shipping class (no overrides), each at its `for_shipping` when set; same mode.
 * 6. Rounding, half up: `line` rounds each line's tax per rate; `total` rounds each rate's tax once for the order and
 *    allocates the order's tax over the lines in proportion to their exact tax (one allocation, not one per rate: per
 *    rate, ties would pile the extra cents on the first lines). Shipping's tax per rate is rounded once.
 *
 * The answer: each line's tax, the tax by rate (rates that came to 0 are left out), the totals and `tax_country`.
 */
import type { OrderTax, TaxRateShare } from '../orders/totals';
import { add, allocateFractions, percentUnits, round, times, unitTaxes, type Fraction } from './fraction';
import { isCountryWide } from './location';
import type { EngineOverride, EngineRate, TaxCalculationInput, TaxLine } from './types';

const EXEMPT_CLASS = 'tax_exempt';
const STANDARD_CLASS = 'standard';

/** A rate as it applies to an amount: its share's identity and its percentage in millionths. */
interface AppliedRate {
  key: string;
  share: Omit<TaxRateShare, 'order_tax' | 'shipping_tax'>;
  units: bigint;
  compound: boolean;
}

/** The rates of one kind of line (a class, maybe with an override) with their tax per unit of amount. */
interface Plan {
  rates: AppliedRate[];
  perRate: Fraction[];
  total: Fraction;
}

function units(value: string, what: string): bigint {
  const parsed = percentUnits(value);
  if (parsed === null) throw new RangeError(`${what}: the rate must be a non-negative percentage of at most 4 decimals, got ${JSON.stringify(value)}`);
  return parsed;
}

function fromRow(rate: EngineRate, shipping: boolean): AppliedRate {
  const own = units(rate.rate, `tax rate ${rate.id}`);
  return {
    key: `rate:${rate.id}`,
    share: { tax_rate_id: rate.id, name: rate.name, rate: rate.rate, country: rate.country, state: rate.state, is_compound: rate.is_compound },
    units: shipping && rate.for_shipping !== null ? (percentUnits(rate.for_shipping) ?? own) : own,
    compound: rate.is_compound === 1,
  };
}

function fromOverride(override: EngineOverride): AppliedRate {
  return {
    key: `override:${override.id}`,
    share: {
      tax_rate_id: null,
      name: override.tax_label || override.category_name,
      rate: override.rate,
      country: override.country,
      state: override.state,
      is_compound: 0,
      override_id: override.id,
    },
    units: units(override.rate, `tax override ${override.id}`),
    compound: false,
  };
}

/** The class-matched rates, the country-wide ones dropped when a more specific `for_order` rate replaces them. */
function classRates(matched: EngineRate[], classId: number | null): EngineRate[] {
  const candidates = matched.filter((rate) => rate.class_id === 0 || rate.class_id === classId);
  const replaces = candidates.some((rate) => rate.for_order === 1 && !isCountryWide(rate));
  return replaces ? candidates.filter((rate) => !isCountryWide(rate)) : candidates;
}

/** Builds each kind of line's plan once per calculation. */
class Planner {
  private readonly plans = new Map<string, Plan>();
  private readonly classIds: Map<string, number>;
  private readonly overrideRank = new Map<number, number>();

  constructor(private readonly input: TaxCalculationInput) {
    this.classIds = new Map(input.classes.map((taxClass) => [taxClass.slug, taxClass.id]));
    input.overrides.forEach((override, rank) => {
      if (!this.overrideRank.has(override.category_id)) this.overrideRank.set(override.category_id, rank);
    });
  }

  private planOf(rates: AppliedRate[]): Plan {
    return { rates, ...unitTaxes(rates, this.input.prices_include_tax) };
  }

  /** The class id of a slug (unknown slugs are the standard class); undefined for an exempt line. */
  classId(slug: string | null): number | null | undefined {
    if (slug === EXEMPT_CLASS) return undefined;
    return this.classIds.get(slug || STANDARD_CLASS) ?? this.classIds.get(STANDARD_CLASS) ?? null;
  }

  private override(line: TaxLine): EngineOverride | null {
    let best: number | undefined;
    for (const category of line.category_ids) {
      const rank = this.overrideRank.get(category);
      if (rank !== undefined && (best === undefined || rank < best)) best = rank;
    }
    return best === undefined ? null : this.input.overrides[best];
  }

  line(line: TaxLine): Plan | null {
    const classId = this.classId(line.tax_class);
    if (classId === undefined) return null;
    const override = this.override(line);
    const taxedAs = override && override.class_id !== 0 ? override.class_id : classId;
    const withRate = override && override.class_id === 0 ? override : null;
    const key = `${taxedAs}:${withRate?.id ?? ''}`;
    let plan = this.plans.get(key);
    if (plan === undefined) {
      const rows = classRates(this.input.rates, taxedAs);
      const kept = !withRate ? rows : withRate.override_state_tax === 'yes' ? [] : rows.filter((rate) => !isCountryWide(rate));
      plan = this.planOf([...(withRate ? [fromOverride(withRate)] : []), ...kept.map((rate) => fromRow(rate, false))]);
      this.plans.set(key, plan);
    }
    return plan;
  }

  shipping(): Plan | null {
    const classId = this.classId(this.input.shipping.tax_class);
    return classId === undefined ? null : this.planOf(classRates(this.input.rates, classId).map((rate) => fromRow(rate, true)));
  }
}

interface ShareTotals {
  share: AppliedRate['share'];
  order: bigint;
  shipping: bigint;
}

function assertAmount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer amount, got ${value}`);
}

/** The tax of an order: see the rules at the top of this file. */
export function calculateTax(input: TaxCalculationInput): OrderTax {
  const planner = new Planner(input);
  const shares = new Map<string, ShareTotals>();
  const shareOf = (rate: AppliedRate) => {
    let totals = shares.get(rate.key);
    if (!totals) {
      totals = { share: rate.share, order: 0n, shipping: 0n };
      shares.set(rate.key, totals);
    }
    return totals;
  };

  const lineTax = input.lines.map(() => 0n);
  /** `total` rounding: each line's exact tax, and each rate's exact tax for the order. */
  const lineExact: Fraction[] = input.lines.map(() => ({ n: 0n, d: 1n }));
  const rateExact = new Map<string, { rate: AppliedRate; exact: Fraction }>();
  input.lines.forEach((line, index) => {
    assertAmount(line.amount, `amount of line ${line.cart_index}`);
    const plan = planner.line(line);
    if (!plan || line.amount === 0) return;
    const amount = BigInt(line.amount);
    plan.rates.forEach((rate, i) => {
      const exact = times(amount, plan.perRate[i]);
      if (input.rounding === 'line') {
        const tax = round(exact);
        lineTax[index] += tax;
        shareOf(rate).order += tax;
        return;
      }
      const entry = rateExact.get(rate.key);
      if (entry) entry.exact = add(entry.exact, exact);
      else rateExact.set(rate.key, { rate, exact });
    });
    if (input.rounding === 'total') lineExact[index] = times(amount, plan.total);
  });
  if (input.rounding === 'total') {
    let total = 0n;
    for (const { rate, exact } of rateExact.values()) {
      const tax = round(exact);
      shareOf(rate).order += tax;
      total += tax;
    }
    allocateFractions(total, lineExact).forEach((part, i) => {
      lineTax[i] = part;
    });
  }

  assertAmount(input.shipping.amount, 'shipping amount');
  const shippingPlan = input.shipping.amount > 0 ? planner.shipping() : null;
  if (shippingPlan) {
    const amount = BigInt(input.shipping.amount);
    shippingPlan.rates.forEach((rate, i) => {
      shareOf(rate).shipping += round(times(amount, shippingPlan.perRate[i]));
    });
  }

  const rates: TaxRateShare[] = [...shares.values()]
    .filter((totals) => totals.order > 0n || totals.shipping > 0n)
    .map((totals) => ({ ...totals.share, order_tax: Number(totals.order), shipping_tax: Number(totals.shipping) }));
  const lines = input.lines.map((line, i) => ({ cart_index: line.cart_index, tax_amount: Number(lineTax[i]) }));
  return {
    tax_total: lines.reduce((total, line) => total + line.tax_amount, 0),
    shipping_tax: rates.reduce((total, rate) => total + rate.shipping_tax, 0),
    inclusive: input.prices_include_tax,
    lines,
    rates,
    tax_country: input.country.toUpperCase(),
  };
}
