import type { Ctx } from '../../../core/context';
import { LICENSE_CODES } from './smartcodes';
import type { EmailData } from './types';

const CODE = /\{\{\s*([a-z_]\w*(?:\.\w+)+)\s*\}\}/gi;
/** A license loop block, or a single code. */
const TOKEN = /\{\{\s*#licenses\s*\}\}([\s\S]*?)\{\{\s*\/licenses\s*\}\}|\{\{\s*([a-z_]\w*(?:\.\w+)+)\s*\}\}/gi;
const LICENSE = new Set<string>(LICENSE_CODES);

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

const has = (values: Record<string, string>, name: string) => Object.prototype.hasOwnProperty.call(values, name);

/**
 * Replaces `{{group.path}}` smartcodes in admin-written text (a subject, a body, the footer, the admin address) with
 * the email's values: a plain textual replacement, nothing is ever evaluated. `html`: values are HTML-escaped (bodies);
 * `text`: inserted as they are (subjects, addresses).
 *
 * `{{#licenses}}…{{/licenses}}` repeats its content once per license of the order, with the `license.*` codes filled
 * (no license: nothing). A `license.*` code outside the loop is empty. A code the store does not know goes through the
 * filter `store/email/smartcode`; when no listener answers (null) it stays as written.
 */
export async function replaceSmartcodes(ctx: Ctx, template: string, data: EmailData, target: 'html' | 'text'): Promise<string> {
  const escape = target === 'html' ? escapeHtml : (text: string) => text;
  const codes: Record<string, string> = data.codes;
  const unknown = new Map<string, string | null>();
  for (const [, name] of template.matchAll(CODE)) {
    if (!has(codes, name) && !LICENSE.has(name) && !unknown.has(name)) {
      unknown.set(name, await ctx.hooks.applyFiltersAsync('store/email/smartcode', null, { code: name, data }));
    }
  }
  const fill = (values: Record<string, string>) => (written: string, name: string) => {
    if (has(values, name)) return escape(values[name]);
    if (LICENSE.has(name)) return '';
    const answer = unknown.get(name);
    return answer === null || answer === undefined ? written : escape(answer);
  };
  const outside = fill(codes);
  return template.replace(TOKEN, (written, block: string | undefined, name: string | undefined) =>
    block === undefined ? outside(written, name as string) : data.licenses.map((license) => block.replace(CODE, fill({ ...codes, ...license }))).join(''),
  );
}
