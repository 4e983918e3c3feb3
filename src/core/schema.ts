import { Type } from '@sinclair/typebox';

/** A string that must be one of `values` (its static type is their union). */
export const oneOf = <const T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

/** `{id}` path parameter. */
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
