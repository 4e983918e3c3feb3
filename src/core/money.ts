import currencyCodes from 'currency-codes';

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
  // "-0" and "-0.00" are zero, not negative zero.
  return cents(sign === '-' && value !== 0 ? -value : value);
}

/** Cents as a plain decimal string: 1234 → "12.34", -5 → "-0.05". */
export function centsToDecimal(amount: Cents | number, decimals = 2): string {
  if (!Number.isSafeInteger(amount)) throw new RangeError(`cents must be a safe integer, got ${amount}`);
  const negative = amount < 0;
  const digits = String(Math.abs(amount)).padStart(decimals + 1, '0');
  const text = decimals ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
  return negative ? `-${text}` : text;
}

/**
 * Splits an integer amount into parts proportional to non-negative integer weights; the parts always sum to
 * `total`. The remainder goes one cent at a time to the largest fractions (ties: the earlier part). A negative
 * total is split like its absolute value, then negated. When every weight is 0 the amount is split evenly.
 */
export function allocate(total: Cents | number, weights: number[]): Cents[] {
  if (!Number.isSafeInteger(total)) throw new RangeError(`allocate: total must be a safe integer, got ${total}`);
  if (weights.some((w) => !Number.isSafeInteger(w) || w < 0)) throw new RangeError('allocate: weights must be non-negative integers');
  if (weights.length === 0) {
    if (total === 0) return [];
    throw new RangeError('allocate: no weights to split a non-zero amount over');
  }
  if (total < 0) return allocate(-total, weights).map((part) => cents(part === 0 ? 0 : -part));
  return allocateExact(BigInt(total), weights.map(BigInt)).map((v) => cents(Number(v)));
}

/** `allocate` on a non-negative total and non-empty non-negative weights of any size (exact fractions brought to one denominator). */
export function allocateExact(total: bigint, weights: bigint[]): bigint[] {
  const effective = weights.every((w) => w === 0n) ? weights.map(() => 1n) : weights;
  const sum = effective.reduce((a, b) => a + b, 0n);
  const raw = effective.map((w) => (total * w) / sum);
  let remainder = total - raw.reduce((a, b) => a + b, 0n);
  const order = effective.map((w, i) => ({ i, frac: (total * w) % sum })).sort((a, b) => (b.frac > a.frac ? 1 : b.frac < a.frac ? -1 : a.i - b.i));
  for (const { i } of order) {
    if (remainder <= 0n) break;
    raw[i] += 1n;
    remainder -= 1n;
  }
  return raw;
}

/** `num/den` of an amount in cents, rounded half up (away from zero), in integer arithmetic. */
export function mulDivRound(amount: number, num: number, den: number): Cents {
  return cents(Number(divRoundHalfUp(BigInt(amount) * BigInt(num), BigInt(den))));
}

/** `n/d` rounded half up (away from zero): the store's one rounding rule for money. */
export function divRoundHalfUp(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n % d;
  const twice = (r < 0n ? -r : r) * 2n;
  const roundAway = twice >= (d < 0n ? -d : d);
  return roundAway ? q + (n < 0n !== d < 0n ? -1n : 1n) : q;
}

/** Digits of the known currencies, looked up once each: `currencyCodes.code` scans its whole list (exports format millions). */
const digitsOf = new Map<string, number>();

/** Digits after the decimal point of a currency (ISO 4217): 2 for USD, 0 for JPY, 3 for KWD; 2 when unknown. */
export function minorUnits(currency: string): number {
  const code = currency.toUpperCase();
  let digits = digitsOf.get(code);
  if (digits === undefined) {
    const record = currencyCodes.code(code);
    if (!record) return 2;
    digits = record.digits;
    digitsOf.set(code, digits);
  }
  return digits;
}

/** An amount in minor units as a plain decimal in its currency's own digits, with the code: `12.34 USD`, `1000 JPY`, `1.250 KWD`. */
export function decimalWithCode(amount: Cents | number, currency: string): string {
  return `${centsToDecimal(amount, minorUnits(currency))} ${currency}`;
}

/** How the store writes an amount: the settings' currency position and separators. */
export interface MoneyFormat {
  currency_position: 'before' | 'after' | 'before_space' | 'after_space';
  thousand_separator: string;
  decimal_separator: string;
}

/** The currency's narrow sign as people write it: `$` for USD, `€` for EUR, the code itself when there is none. */
export function currencySymbol(currency: string): string {
  const part = new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'narrowSymbol' })
    .formatToParts(0)
    .find((p) => p.type === 'currency');
  return part?.value ?? currency;
}

const symbols = new Map<string, string>();

/**
 * An amount in minor units written for people: `$1,234.50`, `1.234,50 €`, `¥1,235`. The number of decimals is the
 * currency's own (ISO 4217), so a zero-decimal currency never shows a fraction.
 */
export function formatMoney(amount: Cents | number, currency: string, format: MoneyFormat): string {
  const code = currency.toUpperCase();
  const decimal = centsToDecimal(Math.abs(amount), minorUnits(code));
  const [whole, fraction] = decimal.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, format.thousand_separator);
  const number = fraction === undefined ? grouped : `${grouped}${format.decimal_separator}${fraction}`;
  let symbol = symbols.get(code);
  if (symbol === undefined) {
    symbol = currencySymbol(code);
    symbols.set(code, symbol);
  }
  const sign = amount < 0 ? '-' : '';
  switch (format.currency_position) {
    case 'before':
      return `${sign}${symbol}${number}`;
    case 'before_space':
      return `${sign}${symbol} ${number}`;
    case 'after':
      return `${sign}${number}${symbol}`;
    case 'after_space':
      return `${sign}${number} ${symbol}`;
  }
}
