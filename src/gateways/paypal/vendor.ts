import { ApiError } from '@paypal/paypal-server-sdk';
import { AppError, fail } from '../../core/errors';
import { centsToDecimal, minorUnits, parseDecimalToCents } from '../../core/money';

/** PayPal answered a call with an error it made a decision on: nothing was done, and the call may be made again. */
export interface PayPalRefusal {
  status: number;
  /** The first detail's `issue` (`INSTRUMENT_DECLINED`, `ORDER_ALREADY_CAPTURED`), else the error's `name`. */
  issue: string;
  description: string;
}

interface ErrorBody {
  name?: string;
  message?: string;
  details?: Array<{ issue?: string; description?: string }>;
  error?: string;
  error_description?: string;
}

function bodyOf(error: ApiError): ErrorBody {
  if (error.result && typeof error.result === 'object') return error.result as ErrorBody;
  if (typeof error.body !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(error.body);
    return parsed && typeof parsed === 'object' ? (parsed as ErrorBody) : {};
  } catch {
    return {};
  }
}

/**
 * The refusal in a failed SDK call, or null when the outcome is unknown: a lost connection, a timeout, a 5xx, or a
 * 408/409 (PayPal may still be working on the same request).
 */
export function refusalOf(error: unknown): PayPalRefusal | null {
  if (!(error instanceof ApiError)) return null;
  const { statusCode } = error;
  if (statusCode < 400 || statusCode >= 500 || statusCode === 408 || statusCode === 409) return null;
  const body = bodyOf(error);
  const detail = body.details?.[0];
  return {
    status: statusCode,
    issue: detail?.issue ?? body.name ?? body.error ?? `HTTP_${statusCode}`,
    description: detail?.description ?? body.message ?? body.error_description ?? error.message,
  };
}

export function describeRefusal(refusal: PayPalRefusal): string {
  return `${refusal.issue}: ${refusal.description}`;
}

/** Minor units as PayPal's amount: a decimal string with the currency's own number of digits (`"12.50"`, `"1250"` yen). */
export function paypalMoney(amount: number, currency: string): { currencyCode: string; value: string } {
  const code = currency.toUpperCase();
  return { currencyCode: code, value: centsToDecimal(amount, minorUnits(code)) };
}

/** PayPal's amount in minor units of its currency; null when it is missing or not an exact decimal of that currency. */
export function minorAmount(currency: unknown, value: unknown): { currency: string; amount: number } | null {
  if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency)) return null;
  const code = currency.toUpperCase();
  const amount = parseDecimalToCents(value, minorUnits(code));
  return amount === null || amount < 0 ? null : { currency: code, amount };
}

/**
 * Runs a PayPal call for a shopper or an admin waiting on it: a refusal becomes a 502 carrying PayPal's issue (`PayPal
 * refused <what>: …`), no answer a 502 asking to try again (the detail is logged).
 */
export async function askPayPal<T>(logger: { warn(obj: unknown, msg?: string): void }, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AppError) throw error;
    logger.warn({ err: error }, `PayPal: ${what} did not succeed`);
    const refusal = refusalOf(error);
    if (refusal) throw fail('invalid_state', `PayPal refused ${what}: ${describeRefusal(refusal)}`, { status: 502 });
    throw fail('invalid_state', 'PayPal could not be reached. Please try again in a moment.', { status: 502 });
  }
}
