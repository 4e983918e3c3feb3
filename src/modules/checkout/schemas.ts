import { Type } from '@sinclair/typebox';

export const LoginBody = Type.Object({
  user_login: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  remember_me: Type.Optional(Type.String()),
});
