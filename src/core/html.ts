import sanitizeHtml from 'sanitize-html';

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'span'],
  allowedAttributes: {
    ...sanitizeHtml.defaults.allowedAttributes,
    '*': ['style', 'class'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    a: ['href', 'name', 'target', 'rel'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedStyles: {
    '*': { color: [/^#[0-9a-f]{3,8}$/i, /^[a-z]+$/i], 'text-align': [/^(left|right|center|justify)$/], 'font-weight': [/^(bold|normal|\d{3})$/] },
  },
};

/** Stored HTML (product descriptions, email bodies) keeps safe markup only: no scripts, handlers or javascript: URLs. */
export function sanitizeRichText(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}

const NUMBER = '-?(?:\\d+|\\d*\\.\\d+)';
const LENGTH = `(?:${NUMBER}(?:px|em|rem|%|pt)?|auto)`;
const lengths = (count: number) => [new RegExp(`^${LENGTH}(?:\\s+${LENGTH}){0,${count - 1}}$`, 'i')];
const RGB = 'rgba?\\(\\s*[\\d.%]+\\s*,\\s*[\\d.%]+\\s*,\\s*[\\d.%]+\\s*(?:,\\s*[\\d.]+\\s*)?\\)';
const COLOR = [/^#[0-9a-f]{3,8}$/i, /^[a-z]+$/i, new RegExp(`^${RGB}$`, 'i')];
const BORDER_STYLE = 'none|hidden|solid|dashed|dotted|double|groove|ridge|inset|outset';
const BORDER = [new RegExp(`^(?:(?:${LENGTH}|${BORDER_STYLE}|#[0-9a-f]{3,8}|[a-z]+|${RGB})(?:\\s+|$)){1,3}$`, 'i')];
const keywords = (...words: string[]) => [new RegExp(`^(?:${words.join('|')})$`, 'i')];
const sides = (property: string, values: RegExp[]) =>
  Object.fromEntries([property, ...['top', 'right', 'bottom', 'left'].map((side) => `${property}-${side}`)].map((name) => [name, values]));

/** The inline styles email layouts are made of; values are plain lengths, colours and keywords (never `url()` or `expression()`). */
const EMAIL_STYLES: Record<string, RegExp[]> = {
  color: COLOR,
  'background-color': COLOR,
  background: COLOR,
  'font-family': [/^[\w\s,'"-]+$/],
  'font-size': [new RegExp(`^(?:${NUMBER}(?:px|em|rem|%|pt)|[a-z-]+)$`, 'i')],
  'font-weight': keywords('normal', 'bold', 'bolder', 'lighter', '[1-9]00'),
  'font-style': keywords('normal', 'italic', 'oblique'),
  'text-align': keywords('left', 'right', 'center', 'justify'),
  'text-decoration': keywords('none', 'underline', 'overline', 'line-through'),
  'text-transform': keywords('none', 'uppercase', 'lowercase', 'capitalize'),
  'line-height': [new RegExp(`^(?:normal|${NUMBER}(?:px|em|rem|%)?)$`, 'i')],
  'letter-spacing': lengths(1),
  'vertical-align': keywords('top', 'middle', 'bottom', 'baseline'),
  'white-space': keywords('normal', 'nowrap'),
  display: keywords('block', 'inline', 'inline-block', 'none'),
  width: lengths(1),
  height: lengths(1),
  'max-width': lengths(1),
  'min-width': lengths(1),
  ...sides('padding', lengths(4)),
  ...sides('margin', lengths(4)),
  ...sides('border', BORDER),
  'border-color': COLOR,
  'border-width': lengths(4),
  'border-style': keywords(BORDER_STYLE),
  'border-radius': lengths(4),
  'border-collapse': keywords('collapse', 'separate'),
};

const CELL = ['width', 'height', 'valign', 'colspan', 'rowspan', 'bgcolor'];

const EMAIL_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img'],
  allowedAttributes: {
    '*': ['style', 'align', 'dir'],
    a: ['href', 'name', 'target', 'rel', 'title'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    table: ['width', 'cellpadding', 'cellspacing', 'border', 'role', 'bgcolor'],
    tr: ['valign', 'bgcolor'],
    td: CELL,
    th: CELL,
    col: ['width', 'span'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowedStyles: { '*': EMAIL_STYLES },
};

/**
 * Admin-edited email HTML (notification bodies, the footer): the tables, attributes and inline styles emails are laid
 * out with, nothing that runs (scripts, event handlers, javascript: URLs) or loads (`url()`). `{{smartcodes}}` survive,
 * in text and in links (`href="{{order.customer_dashboard_link}}"`).
 */
export function sanitizeEmailHtml(html: string): string {
  return sanitizeHtml(html, EMAIL_OPTIONS);
}
