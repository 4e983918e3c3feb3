import type { Ctx } from '../../../core/context';
import { fail } from '../../../core/errors';
import { sanitizeEmailHtml } from '../../../core/html';
import { getStoreSettings } from '../../settings/store-settings';
import { isNotificationKey } from '../catalog';
import type { RenderedEmail } from '../types';
import { renderNotification } from './render';
import { sampleEmailData } from './sample';
import type { EmailDraft } from './types';

/**
 * `POST /email-notification/{notification}/preview`: the notification rendered with sample data, with the unsaved
 * subject and body when given (the body sanitised as a save would). Nothing is stored or sent.
 */
export async function previewNotification(ctx: Ctx, name: string, draft: EmailDraft): Promise<RenderedEmail> {
  if (!isNotificationKey(name)) throw fail('not_found', 'Notification Details not found');
  const data = sampleEmailData(ctx, await getStoreSettings(ctx.host));
  const body = draft.email_body === undefined ? {} : { email_body: sanitizeEmailHtml(draft.email_body) };
  return renderNotification(ctx, ctx.db, name, data, { ...draft, ...body });
}
