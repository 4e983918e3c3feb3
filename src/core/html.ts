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
