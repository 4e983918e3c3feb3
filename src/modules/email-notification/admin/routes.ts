import { StoreSensitivePolicy } from '../../../core/policies';
import { route, type RouteDef } from '../../../core/routes';
import { emailSettingsView, SAVED, saveEmailSettings } from './email-settings';
import { listNotifications, notificationDetail, UPDATED, updateNotification } from './notifications';
import { reminderSettingsView, REMINDERS_SAVED, saveReminderSettings } from './reminders';
import { EmailSettingsBody, EnableNotificationBody, NotificationNameParams, NotificationParams, NotificationUpdateBody, ReminderSettingsBody } from './schemas';
import { shortCodesView } from './short-codes';

const admin = { policy: StoreSensitivePolicy, permission: 'store/sensitive', envelope: 'message' } as const;

/** The spec does not show the method that saves reminders: both POST (DESIGN) and PUT are accepted. */
const saveReminders = (method: 'POST' | 'PUT') =>
  route({
    ...admin,
    method,
    path: '/email-notification/reminders',
    schema: { body: ReminderSettingsBody },
    handler: async (ctx, { body }) => ({ message: REMINDERS_SAVED, settings: await saveReminderSettings(ctx, body) }),
  });

/** The spec's "Email notifications" table (prefix `/email-notification`, `StoreSensitivePolicy`, `store/sensitive`). */
export const emailNotificationRoutes: RouteDef[] = [
  route({ ...admin, method: 'GET', path: '/email-notification', handler: async (ctx) => ({ data: await listNotifications(ctx) }) }),
  route({ ...admin, method: 'GET', path: '/email-notification/get-short-codes', handler: async () => shortCodesView() }),
  route({ ...admin, method: 'GET', path: '/email-notification/get-settings', handler: (ctx) => emailSettingsView(ctx) }),
  route({
    ...admin,
    method: 'POST',
    path: '/email-notification/save-settings',
    schema: { body: EmailSettingsBody },
    handler: async (ctx, { body }) => {
      await saveEmailSettings(ctx, body);
      return { message: SAVED };
    },
  }),
  route({ ...admin, method: 'GET', path: '/email-notification/reminders', handler: (ctx) => reminderSettingsView(ctx) }),
  saveReminders('POST'),
  saveReminders('PUT'),
  route({
    ...admin,
    method: 'POST',
    path: '/email-notification/enable-notification/:name',
    schema: { params: NotificationNameParams, body: EnableNotificationBody },
    handler: async (ctx, { params, body }) => {
      await updateNotification(ctx, params.name, { active: body.active });
      return { message: UPDATED };
    },
  }),
  route({
    ...admin,
    method: 'GET',
    path: '/email-notification/:notification',
    schema: { params: NotificationParams },
    handler: (ctx, { params }) => notificationDetail(ctx, params.notification),
  }),
  route({
    ...admin,
    method: 'PUT',
    path: '/email-notification/:notification',
    schema: { params: NotificationParams, body: NotificationUpdateBody },
    handler: async (ctx, { params, body }) => {
      await updateNotification(ctx, params.notification, body.settings);
      return { message: UPDATED };
    },
  }),
];
