import { Type } from '@sinclair/typebox';

export const LabelBody = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 100 }),
  color: Type.Optional(Type.String({ maxLength: 20, pattern: '^(#[0-9a-fA-F]{3,8}|[a-z]*)$' })),
});

export const LabelPatch = Type.Partial(LabelBody);
