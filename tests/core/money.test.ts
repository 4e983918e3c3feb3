/**
 * Money (`src/core/money.ts`): integer cents everywhere; decimal inputs are parsed as text, never through
 * floating-point multiplication.
 *
 * - `parseDecimalToCents(input, decimals = 2)`: "12.34" → 1234; null for anything that is not a plain decimal
 *   with at most `decimals` fraction digits, or that does not fit a safe integer.
 * - `centsToDecimal(cents, decimals = 2)`: 1234 → "12.34".
 * - `allocate(total, weights)`: splits cents proportionally; the parts always sum to the total.
 * - `mulDivRound(amount, num, den)`: amount × num / den rounded half away from zero, in integer arithmetic.
 */
import { allocate, cents, centsToDecimal, mulDivRound, parseDecimalToCents } from '../../src/core/money';

describe('parseDecimalToCents', () => {
  it.each<[unknown, number]>([
    ['12.34', 1234],
    ['12.3', 1230],
    ['12', 1200],
    ['0.1', 10],
    ['0.07', 7],
    ['0.05', 5],
    ['19.99', 1999], // 19.99 * 100 === 1998.9999999999998 in floating point
    ['1.15', 115], // 1.15 * 100 === 114.99999999999999
    ['4.35', 435], // 4.35 * 100 === 434.99999999999994
    ['0', 0],
    ['0.00', 0],
    ['00012.30', 1230],
    [' 5 ', 500],
    ['\t7.5\n', 750],
    ['+3.10', 310],
    ['-0.05', -5],
    ['-12.34', -1234],
    ['90071992547409.91', 9007199254740991], // the largest safe integer of cents
    [12.34, 1234],
    [19.99, 1999],
    [0.1, 10],
    [5, 500],
    [0, 0],
    [-2.5, -250],
  ])('%j → %d', (input, expected) => {
    expect(parseDecimalToCents(input)).toBe(expected);
  });

  it.each<[string, unknown]>([
    ['an exponent', '1e3'],
    ['a number that prints with an exponent', 1e21],
    ['a tiny number that prints with an exponent', 1e-7],
    ['too many fraction digits', '1.234'],
    ['too many fraction digits (a float artefact)', 0.1 + 0.2],
    ['the empty string', ''],
    ['spaces', '   '],
    ['a trailing dot', '5.'],
    ['a leading dot', '.5'],
    ['a thousands separator', '1,000.00'],
    ['a decimal comma', '12,34'],
    ['a currency sign', '$12.34'],
    ['a currency code', '12.34 USD'],
    ['two signs', '--5'],
    ['a space after the sign', '- 5'],
    ['words', 'twelve'],
    ['hex', '0x10'],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['NaN', Number.NaN],
    ['"Infinity"', 'Infinity'],
    ['null', null],
    ['undefined', undefined],
    ['a boolean', true],
    ['an object', { amount: '1.00' }],
    ['an array', ['1.00']],
    ['a huge value', '99999999999999999999'],
    ['one cent above the safe range', '90071992547409.92'],
    ['a huge number', 1e300],
  ])('%s (%j) → null', (_title, input) => {
    expect(parseDecimalToCents(input)).toBeNull();
  });

  it.each(['-0', '-0.00', '+0'])('%s is zero, not negative zero', (input) => {
    expect(Object.is(parseDecimalToCents(input), 0)).toBe(true);
  });

  it.each<[unknown, number, number | null]>([
    ['12', 0, 12],
    ['12.5', 0, null],
    ['1.234', 3, 1234],
    ['1.2', 3, 1200],
    ['1.2345', 3, null],
  ])('%j with %d decimals → %j', (input, decimals, expected) => {
    expect(parseDecimalToCents(input, decimals)).toBe(expected);
  });
});

describe('centsToDecimal', () => {
  it.each<[number, string]>([
    [1234, '12.34'],
    [1230, '12.30'],
    [5, '0.05'],
    [50, '0.50'],
    [0, '0.00'],
    [-5, '-0.05'],
    [-1234, '-12.34'],
    [100000000, '1000000.00'],
  ])('%d → %s', (amount, text) => {
    expect(centsToDecimal(amount)).toBe(text);
  });

  it.each<[number, number, string]>([
    [1234, 0, '1234'],
    [1234, 3, '1.234'],
    [5, 3, '0.005'],
  ])('%d with %d decimals → %s', (amount, decimals, text) => {
    expect(centsToDecimal(amount, decimals)).toBe(text);
  });

  it.each([12.5, Number.NaN, Number.POSITIVE_INFINITY, 1e21])('refuses %d (not a whole number of cents)', (amount) => {
    expect(() => centsToDecimal(amount)).toThrow(RangeError);
  });

  it.each(['0.01', '12.34', '-7.05', '1000000.00'])('round-trips %s', (text) => {
    expect(centsToDecimal(parseDecimalToCents(text)!)).toBe(text);
  });
});

describe('cents', () => {
  it.each([1.5, Number.NaN, 2 ** 53])('refuses %d', (value) => {
    expect(() => cents(value)).toThrow(RangeError);
  });

  it('brands a safe integer', () => {
    expect(cents(-42)).toBe(-42);
  });
});

describe('allocate', () => {
  it.each<[number, number[], number[]]>([
    [100, [1, 1], [50, 50]],
    [100, [1, 1, 1], [34, 33, 33]],
    [101, [1, 1], [51, 50]],
    [1000, [1, 2, 3, 4], [100, 200, 300, 400]],
    [100, [70, 30], [70, 30]],
    [10, [3, 3, 3], [4, 3, 3]],
    [5, [1, 2], [2, 3]], // 1.67 / 3.33: the larger fraction gets the remainder
    [7, [1, 0, 1], [4, 0, 3]],
    [0, [1, 2, 3], [0, 0, 0]],
    [1, [1000, 1, 1], [1, 0, 0]],
    [2, [1, 1, 1], [1, 1, 0]], // ties go to the earlier part
    [100, [0, 0], [50, 50]], // every weight 0: an even split
    [-100, [1, 1, 1], [-34, -33, -33]],
    [-5, [1, 2], [-2, -3]],
    [1999, [1999], [1999]],
    [9007199254740991, [1, 1], [4503599627370496, 4503599627370495]],
  ])('%d over %j → %j', (total, weights, parts) => {
    const result = allocate(total, weights);
    expect(result).toEqual(parts);
    expect(result.reduce((a, b) => a + b, 0)).toBe(total);
  });

  it.each<[number, number[]]>([
    [1999, [333, 333, 334]],
    [1, [1, 1, 1, 1, 1, 1, 1]],
    [123457, [5000, 2500, 1999, 1]],
    [-9999, [7, 11, 13]],
    [99, [9007199254740991, 9007199254740991]],
  ])('the parts of %d over %j sum exactly to the total', (total, weights) => {
    expect(allocate(total, weights).reduce((a, b) => a + b, 0)).toBe(total);
  });

  it('no weights: nothing to split (zero only)', () => {
    expect(allocate(0, [])).toEqual([]);
    expect(() => allocate(5, [])).toThrow(RangeError);
  });

  it.each<[string, number, number[]]>([
    ['a negative weight', 100, [1, -1]],
    ['a fractional weight', 100, [1.5, 1]],
    ['a fractional total', 10.5, [1, 1]],
  ])('refuses %s', (_title, total, weights) => {
    expect(() => allocate(total, weights)).toThrow(RangeError);
  });

  it('never returns negative zero', () => {
    for (const part of allocate(-1, [1, 1, 1])) expect(Object.is(part, -0)).toBe(false);
  });
});

describe('mulDivRound', () => {
  it.each<[number, number, number, number]>([
    [1000, 1, 3, 333], // 333.33 → down
    [2000, 1, 3, 667], // 666.67 → up
    [5, 1, 2, 3], // 2.5 → half up
    [15, 1, 10, 2], // 1.5 → half up
    [25, 1, 10, 3], // 2.5 → half up (not banker's rounding to 2)
    [14, 1, 10, 1],
    [-5, 1, 2, -3], // -2.5 → half away from zero
    [-14, 1, 10, -1],
    [5, -1, 2, -3],
    [5, 1, -2, -3],
    [-5, -1, 2, 3],
    [1999, 2000, 10000, 400], // 20% tax of 19.99: 399.8 → 400
    [1999, 825, 10000, 165], // 8.25%: 164.9175 → 165
    [1000, 0, 7, 0],
    [0, 5, 3, 0],
    [1, 1, 1, 1],
    [9007199254740991, 1, 1, 9007199254740991],
  ])('%d × %d / %d → %d', (amount, num, den, expected) => {
    expect(mulDivRound(amount, num, den)).toBe(expected);
  });

  it('does not lose precision where a float product would', () => {
    // 9007199254740991 * 3 overflows double precision; the exact result is 2702159776422297.3
    expect(mulDivRound(9007199254740991, 3, 10)).toBe(2702159776422297);
  });

  it.each<[string, number, number, number]>([
    ['division by zero', 1, 1, 0],
    ['a fractional factor', 100, 0.5, 1],
    ['a result beyond the safe range', 9007199254740991, 2, 1],
  ])('throws on %s', (_title, amount, num, den) => {
    expect(() => mulDivRound(amount, num, den)).toThrow(RangeError);
  });
});
