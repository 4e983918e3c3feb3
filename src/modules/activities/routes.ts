import { Type } from '@sinclair/typebox';
import { AdminPolicy } from '../../core/policies';
import { listQuery } from '../../core/list';
import { Id, oneOf } from '../../core/schema';
import { route, type RouteDef } from '../../core/routes';
import { ACTIVITY_READ_PERMISSION, listActivities } from './service';
import { ACTIVITY_OBJECT_TYPES } from './types';

export const activityRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/activities',
    policy: AdminPolicy,
    permission: [...new Set(Object.values(ACTIVITY_READ_PERMISSION))],
    schema: {
      query: listQuery({
        object_type: Type.Optional(oneOf(ACTIVITY_OBJECT_TYPES)),
        object_id: Type.Optional(Id()),
      }),
    },
    envelope: 'message',
    handler: async (ctx, { query }) => ({ activities: await listActivities(ctx, query) }),
  }),
];
