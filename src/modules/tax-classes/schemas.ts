import { Type } from '@sinclair/typebox';
import { oneOf } from '../../core/schema';
import { BUILTIN_CLASSES } from './types';

/**
 * `title` is checked by the service (the spec answers a missing one with 423, a long one with 422, after the class
 * limit); `slug` only names a built-in class: other classes get theirs from the title.
 */
export const TaxClassBody = Type.Object(
  {
    title: Type.Optional(Type.Union([Type.String(), Type.Null()], { messages: { string: 'The title field must be a string.' } })),
    slug: Type.Optional(
      Type.Union([oneOf(BUILTIN_CLASSES.map((c) => c.slug)), Type.Literal(''), Type.Null()], {
        messages: { in: 'The slug must be reduced or zero: other classes get their slug from the title.' },
      }),
    ),
  },
  { additionalProperties: false },
);
