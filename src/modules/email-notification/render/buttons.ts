const STYLE =
  'display:inline-block;padding:12px 24px;background-color:#2563eb;color:#ffffff;font-family:Helvetica, Arial, sans-serif;font-size:15px;font-weight:bold;line-height:20px;text-decoration:none;border-radius:6px';

const button = (href: string, label: string) => `<p style="text-align:center"><a href="${href}" target="_blank" style="${STYLE}">${label}</a></p>`;

/** Ready-made buttons for the body editor, by label: they pass the email sanitiser as they are. */
export const EMAIL_BUTTONS: Record<string, string> = {
  'View order': button('{{order.customer_dashboard_link}}', 'View order'),
  'Visit store': button('{{site.site_url}}', 'Visit store'),
  'Contact us': button('mailto:{{site.admin_email}}', 'Contact us'),
};
