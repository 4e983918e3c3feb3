import { PublicPolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';
import { login } from './login';
import { LoginBody } from './schemas';

export const checkoutRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/user/login',
    policy: PublicPolicy,
    permission: 'public',
    schema: { body: LoginBody },
    envelope: 'login',
    handler: (ctx, { body }) => login(ctx, body),
  }),
];
