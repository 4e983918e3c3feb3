import { Type } from '@sinclair/typebox';
import { PublicPolicy } from '../../core/policies';
import { route, type RouteDef } from '../../core/routes';
import { receiveWebhook } from './webhooks';

export const webhookRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/webhooks/:gateway',
    policy: PublicPolicy,
    permission: 'public',
    schema: { params: Type.Object({ gateway: Type.String({ maxLength: 50 }) }) },
    envelope: 'message',
    handler: (ctx, { params, raw }) => receiveWebhook(ctx, params.gateway, { rawBody: raw.body ?? Buffer.alloc(0), headers: raw.headers }),
  }),
];
