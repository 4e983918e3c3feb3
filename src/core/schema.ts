import { Type, type IntegerOptions } from '@sinclair/typebox';

/** A string that must be one of `values` (its static type is their union). */
export const oneOf = <const T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

/**
 * Integer bounds follow the columns (see the migrations): ids are `increments()`, INT UNSIGNED on MySQL/MariaDB;
 * counts, quantities and positions are signed INT; money is BIGINT cents, held to the integers a JS number represents
 * exactly. A value past its column's range would otherwise fail in the database (500) instead of naming the field.
 */
export const MAX_ID = 4_294_967_295;
export const MAX_INT = 2_147_483_647;

/** An integer from `minimum` to `maximum`: every integer the API accepts has both bounds. */
export const IntegerIn = (minimum: number, maximum: number, options: IntegerOptions = {}) => Type.Integer({ ...options, minimum, maximum });

/** A record id, 1 … `MAX_ID`. */
export const Id = (options: IntegerOptions = {}) => IntegerIn(1, MAX_ID, options);

/** An id sent as text (form-encoded bodies): at most 10 digits, so it is always a safe integer. */
export const ID_DIGITS = '^[1-9][0-9]{0,9}$';
/** `ID_DIGITS`, or empty. */
export const ID_DIGITS_OR_BLANK = '^([1-9][0-9]{0,9})?$';

/** Money in cents, 0 … `maximum` (at most `Number.MAX_SAFE_INTEGER`, the BIGINT values a JS number holds exactly). */
export const Cents = (maximum: number = Number.MAX_SAFE_INTEGER, options: IntegerOptions = {}) => IntegerIn(0, maximum, options);

/** `{id}` path parameter. */
export const IdParams = Type.Object({ id: Id() });
