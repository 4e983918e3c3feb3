/**
 * Exact tax arithmetic: percentages have at most 4 decimals, so a rate is an integer number of millionths
 * (7.25% = 72500 / 1,000,000), and every tax is a fraction of big integers until it is rounded (half up, by
 * `divRoundHalfUp`, the store's one rounding rule) or allocated (`allocateExact`).
 */
import { allocateExact, divRoundHalfUp, parseDecimalToCents } from '../../core/money';

export interface Fraction {
  n: bigint;
  /** Always positive. */
  d: bigint;
}

/** A percentage of at most 4 decimals as a fraction: its units over a million (7.25% = 72500 / 1,000,000). */
const MILLION = 1_000_000n;
const ONE: Fraction = { n: 1n, d: 1n };

/** A percentage (`"7.25"`, `"7.2500"`, 7.25) in millionths; null when it is not a non-negative decimal of at most 4 places. */
export function percentUnits(value: unknown): bigint | null {
  const units = parseDecimalToCents(value, 4);
  return units === null || units < 0 ? null : BigInt(units);
}

export function add(a: Fraction, b: Fraction): Fraction {
  if (a.d === b.d) return { n: a.n + b.n, d: a.d };
  if (b.d % a.d === 0n) return { n: a.n * (b.d / a.d) + b.n, d: b.d };
  if (a.d % b.d === 0n) return { n: a.n + b.n * (a.d / b.d), d: a.d };
  return { n: a.n * b.d + b.n * a.d, d: a.d * b.d };
}

const sum = (fractions: Fraction[]) => fractions.reduce(add, { n: 0n, d: 1n });

export const round = (f: Fraction): bigint => divRoundHalfUp(f.n, f.d);

export const times = (amount: bigint, f: Fraction): Fraction => ({ n: amount * f.n, d: f.d });

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function reduced(f: Fraction): Fraction {
  const divisor = gcd(f.n, f.d);
  return divisor > 1n ? { n: f.n / divisor, d: f.d / divisor } : f;
}

/** One rate of a chain: its percentage in millionths, and whether it also taxes the tax of the rates before it. */
export interface ChainRate {
  units: bigint;
  compound: boolean;
}

/**
 * The tax of each rate of a chain per unit of amount, and their sum. In order, a compound rate applies to the amount
 * plus the tax of the rates before it, the others to the amount; this gives each rate's tax per unit of net amount
 * and the chain's whole factor `1 + Σ` (net × factor = gross). Inclusive: per unit of gross amount, each of those
 * divided by the factor.
 */
export function unitTaxes(rates: ChainRate[], inclusive: boolean): { perRate: Fraction[]; total: Fraction } {
  let whole = ONE;
  const perNet = rates.map((rate) => {
    const base = rate.compound ? whole : ONE;
    const factor = { n: base.n * rate.units, d: base.d * MILLION };
    whole = add(whole, factor);
    return factor;
  });
  const perRate = perNet.map((f) => reduced(inclusive ? { n: f.n * whole.d, d: f.d * whole.n } : f));
  return { perRate, total: reduced(sum(perRate)) };
}

/** Splits an integer total over exact parts in proportion (largest remainder; the parts sum to the total). */
export function allocateFractions(total: bigint, parts: Fraction[]): bigint[] {
  const common = parts.reduce((d, part) => (d % part.d === 0n ? d : part.d % d === 0n ? part.d : d * part.d), 1n);
  return allocateExact(
    total,
    parts.map((part) => part.n * (common / part.d)),
  );
}
