import type { Static } from '@sinclair/typebox';
import { fullFormats } from 'ajv-formats/dist/formats';
import type { Ctx } from '../../../core/context';
import { invalid } from '../../../core/errors';
import { sanitizeEmailHtml } from '../../../core/html';
import { recordActivity } from '../../activities/service';
import { SMARTCODE_GROUPS } from '../render/smartcodes';
import { defaultEmailSettings, getEmailSettings } from '../settings';
import type { EmailSettings } from '../types';
import { saveInTransaction } from './saving';
import type { EmailSettingsBody } from './schemas';

export const SAVED = 'Email settings saved successfully';
const FAILED = 'Failed to save email settings';

/** The `email` format the schemas check with (ajv-formats), for the entries of `admin_email`. */
const EMAIL = fullFormats.email as RegExp;

/**
 * The smartcodes `admin_email` may hold: the site's addresses of the general group (not the customer's: admin
 * notifications must not reach a customer).
 */
const ADMIN_EMAIL_GROUP = {
  ...SMARTCODE_GROUPS.general,
  shortcodes: Object.fromEntries(Object.entries(SMARTCODE_GROUPS.general.shortcodes).filter(([code]) => /^\{\{site\.\w*email\}\}$/.test(code))),
};

export async function emailSettingsView(ctx: Ctx) {
  return { data: await getEmailSettings(ctx.host), shortcodes: [ADMIN_EMAIL_GROUP] };
}

/** `admin_email` as stored: its comma-separated entries trimmed, each an address or an address smartcode. */
function adminEmails(text: string): string {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const wrong = entries.find((entry) => !EMAIL.test(entry) && !Object.hasOwn(ADMIN_EMAIL_GROUP.shortcodes, entry));
  if (!entries.length || wrong !== undefined) {
    const codes = Object.keys(ADMIN_EMAIL_GROUP.shortcodes).join(', ');
    throw invalid('admin_email', 'email', `Each admin email must be a valid email address or one of ${codes}.`);
  }
  return entries.join(', ');
}

/**
 * Saves the global email settings. Fields left out keep their saved value. `show_email_footer` is the admin's
 * choice: no feature is tier-gated in this store.
 */
export async function saveEmailSettings(ctx: Ctx, body: Static<typeof EmailSettingsBody>): Promise<EmailSettings> {
  const admin_email = adminEmails(body.admin_email);
  return saveInTransaction(ctx, FAILED, async (trx, afterCommit) => {
    const previous: EmailSettings = { ...defaultEmailSettings(ctx.host), ...(await ctx.host.options.lock('email_settings', {}, trx)) };
    const next: EmailSettings = {
      ...previous,
      ...body,
      admin_email,
      email_footer: body.email_footer === undefined ? previous.email_footer : sanitizeEmailHtml(body.email_footer),
    };
    await ctx.host.options.set('email_settings', next, trx);
    const changed = (Object.keys(next) as Array<keyof EmailSettings>).filter((field) => JSON.stringify(next[field]) !== JSON.stringify(previous[field]));
    await recordActivity(trx, ctx, { object_type: 'settings', object_id: 0, title: 'Email settings updated', content: changed.join(', ') }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/email_settings/updated', next, previous));
    return next;
  });
}
