import { Type } from '@sinclair/typebox';
import { StoreSensitivePolicy } from '../../../core/policies';
import { route, type RouteDef } from '../../../core/routes';
import { MAX_EMAIL_BODY, NotificationParams } from '../admin/schemas';
import { previewNotification } from './preview';

const PreviewBody = Type.Object(
  {
    subject: Type.Optional(Type.String({ maxLength: 255 })),
    email_body: Type.Optional(Type.String({ maxLength: MAX_EMAIL_BODY })),
  },
  { additionalProperties: false },
);

/** The preview of a notification for the dashboard's editor: an addition to the spec (issue 14). */
export const emailPreviewRoutes: RouteDef[] = [
  route({
    method: 'POST',
    path: '/email-notification/:notification/preview',
    policy: StoreSensitivePolicy,
    permission: 'store/sensitive',
    envelope: 'message',
    schema: { params: NotificationParams, body: PreviewBody },
    handler: async (ctx, { params, body }) => ({ data: await previewNotification(ctx, params.notification, body) }),
  }),
];
