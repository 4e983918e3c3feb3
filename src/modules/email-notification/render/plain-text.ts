const NAMED = new Map<string, string>(
  Object.entries({
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    nbsp: ' ',
    copy: '©',
    reg: '®',
    hellip: '…',
    ndash: '–',
    mdash: '—',
    lsquo: '‘',
    rsquo: '’',
    ldquo: '“',
    rdquo: '”',
    euro: '€',
    pound: '£',
    bull: '•',
  }),
);

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]+);/gi, (entity, body: string) => {
    if (body[0] !== '#') return NAMED.get(body.toLowerCase()) ?? entity;
    const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

const HREF = /\shref\s*=\s*"([^"]*)"/i;
const ALT = /\salt\s*=\s*"([^"]*)"/i;

/** `label (url)`, or the bare address when the label is the address. */
function link(tag: string, label: string): string {
  const href = decodeEntities(HREF.exec(tag)?.[1] ?? '');
  const text = label.trim();
  if (!href || href.startsWith('#') || decodeEntities(text) === href.replace(/^mailto:/i, '')) return ` ${text} `;
  return text ? ` ${text} (${href}) ` : ` ${href} `;
}

/** Text lines trimmed, at most one blank line between blocks. */
export function tidyText(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The plain text of email HTML: the visible text with the layout's structure (one line per paragraph, heading and table
 * row, cells separated by ` | `), links as `label (url)`, images as their alt text. Made for the HTML the store itself
 * produces (MJML output, sanitised bodies). A general converter (html-to-text) takes about 1 ms for one order email,
 * the whole budget of a render: the default bodies get their text template from this once (`templates.ts`), and only
 * admin-written fragments (a custom body, the footer) are converted per message.
 */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(head|style|script|title)\b[\s\S]*?<\/\1\s*>/gi, '')
    // The pre-header: mail clients show it from the HTML next to the subject.
    .replace(/<div\b[^>]*style="display:none[^"]*"[^>]*>[\s\S]*?<\/div>/gi, '')
    .replace(/\s+/g, ' ')
    .replace(/<a\b([^>]*)>([\s\S]*?)<\/a\s*>/gi, (_, attrs: string, label: string) => link(attrs, label.replace(/<[^>]*>/g, '')))
    .replace(/<img\b[^>]*>/gi, (tag) => ` ${ALT.exec(tag)?.[1] ?? ''} `)
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/?(?:p|div|h[1-6]|table|ul|ol|li|blockquote|section|header|footer|hr)\b[^>]*>|<\/tr\s*>/gi, '\n')
    .replace(/<\/t[dh]\s*>/gi, '\t')
    .replace(/<[^>]*>/g, '');
  return tidyText(
    decodeEntities(text)
      .split('\n')
      .map((line) =>
        line
          .replace(/[ \u00a0]+/g, ' ')
          .trim()
          .replace(/ *\t[ \t]*/g, ' | '),
      )
      .join('\n'),
  );
}
