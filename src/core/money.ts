/** An integer number of cents; the only representation of money in the store. */
export type Cents = number & { readonly __brand: 'Cents' };

export function cents(value: number): Cents {
  if (!Number.isSafeInteger(value)) throw new RangeError(`cents must be a safe integer, got ${value}`);
  return value as Cents;
}

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/**
 * Parses a decimal amount in currency units ("12.34", "12.3", "12", "0.05", or a JSON number) into cents
 * without floating-point arithmetic. More than `decimals` fraction digits, exponents, blanks or anything
 * else that is not a plain decimal gives null.
 */
export function parseDecimalToCents(input: unknown, decimals = 2): Cents | null {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return null;
    text = String(input);
  } else if (typeof input === 'string') {
    text = input.trim();
  } else {
    return null;
  }
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const [, sign, whole, fraction = ''] = match;
  if (fraction.length > decimals) return null;
  const digits = `${whole}${fraction.padEnd(decimals, '0')}`.replace(/^0+(?=\d)/, '');
  const value = Number(digits);
  if (!Number.isSafeInteger(value)) return null;
  return cents(sign === '-' ? -value : value);
}

/** Cents as a plain decimal string: 1234 → "12.34", -5 → "-0.05". */
export function centsToDecimal(amount: Cents | number, decimals = 2): string {
  const negative = amount < 0;
  const digits = String(Math.abs(amount)).padStart(decimals + 1, '0');
  const text = decimals ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
  return negative ? `-${text}` : text;
}

/** Splits an integer amount into parts proportional to weights, the remainder going to the largest fractions. */
export function allocate(total: Cents | number, weights: number[]): Cents[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) return weights.map(() => cents(0));
  const raw = weights.map((w) => (BigInt(total) * BigInt(w)) / BigInt(sum));
  let remainder = BigInt(total) - raw.reduce((a, b) => a + b, 0n);
  const order = weights
    .map((w, i) => ({ i, frac: (BigInt(total) * BigInt(w)) % BigInt(sum) }))
    .sort((a, b) => (b.frac > a.frac ? 1 : b.frac < a.frac ? -1 : a.i - b.i));
  for (const { i } of order) {
    if (remainder <= 0n) break;
    raw[i] += 1n;
    remainder -= 1n;
  }
  return raw.map((v) => cents(Number(v)));
}

/** `num/den` of an amount in cents, rounded half up (away from zero), in integer arithmetic. */
export function mulDivRound(amount: number, num: number, den: number): Cents {
  const n = BigInt(amount) * BigInt(num);
  const d = BigInt(den);
  const q = n / d;
  const r = n % d;
  const twice = (r < 0n ? -r : r) * 2n;
  const roundAway = twice >= (d < 0n ? -d : d);
  return cents(Number(roundAway ? q + (n < 0n !== d < 0n ? -1n : 1n) : q));
}
