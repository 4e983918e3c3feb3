const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** A stored UTC `YYYY-MM-DD HH:MM:SS` as the site writes dates, in its time zone: `November 21, 2026`; empty for none. */
export function siteDate(stored: string | null, timeZone: string): string {
  if (!stored) return '';
  const date = new Date(`${stored.replace(' ', 'T')}Z`);
  if (Number.isNaN(date.getTime())) return stored;
  let format = dateFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone });
    dateFormats.set(timeZone, format);
  }
  return format.format(date);
}

/** A stored key in words: `on-hold` → `On hold`, `half_yearly` → `Half yearly`. */
export function words(value: string): string {
  return value ? value.charAt(0).toUpperCase() + value.slice(1).replace(/[_-]+/g, ' ') : '';
}

const siteRoot = (url: string) => url.replace(/\/+$/, '');

/** The customer's page of an order: its receipt (the uuid is the secret). */
export const receiptUrl = (siteUrl: string, uuid: string) => `${siteRoot(siteUrl)}/receipt/?order_hash=${encodeURIComponent(uuid)}`;

/** A record in the store's dashboard (`orders/12`, `subscriptions/3`). */
export const dashboardUrl = (siteUrl: string, route: string) => `${siteRoot(siteUrl)}/wp-admin/admin.php?page=store#/${route}`;
