import type { Knex } from 'knex';
import { fullFormats } from 'ajv-formats/dist/formats';
import type { Ctx } from '../../../core/context';
import { getEmailSettings } from '../settings';
import { transactionOf } from '../../../core/db';
import { replaceSmartcodes } from './replace';
import type { EmailData } from './types';

/** The check the API's `format: 'email'` makes, so an address the settings accept is one an admin email goes to. */
const EMAIL = fullFormats.email as RegExp;

/**
 * Where admin notifications go: the `admin_email` setting with its smartcodes filled (`{{site.admin_email}}` by
 * default), split on commas, without duplicates. Entries that are not email addresses are left out (and logged).
 */
export async function resolveAdminEmails(ctx: Ctx, db: Knex | Knex.Transaction, data: EmailData): Promise<string[]> {
  const { admin_email } = await getEmailSettings(ctx.host, transactionOf(db));
  const entries = (await replaceSmartcodes(ctx, admin_email, data, 'text'))
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const invalid = entries.filter((entry) => !EMAIL.test(entry));
  if (invalid.length) ctx.host.logger.warn({ invalid }, 'admin email setting names addresses that are not valid; they are skipped');
  return [...new Set(entries.filter((entry) => EMAIL.test(entry)))];
}
