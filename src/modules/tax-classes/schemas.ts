import { Type } from '@sinclair/typebox';

/**
 * `title` is checked by the service (the spec answers a missing one with 423, a long one with 422, after the class
 * limit); `slug` only matters when it names a built-in class (`reduced`, `zero`, any case): otherwise, as the spec
 * says, the slug is generated from the title and the one sent is not used.
 */
export const TaxClassBody = Type.Object(
  {
    title: Type.Optional(Type.Union([Type.String(), Type.Null()], { messages: { string: 'The title field must be a string.' } })),
    slug: Type.Optional(Type.Union([Type.String({ maxLength: 191 }), Type.Null()])),
  },
  { additionalProperties: false },
);
