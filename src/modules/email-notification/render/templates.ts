import fs from 'node:fs/promises';
import path from 'node:path';
import { Eta, type TemplateFunction } from 'eta';
import type { Host } from '../../../host/contract';
import { htmlToText, tidyText } from './plain-text';

/** Every `<%= %>` is HTML-escaped; `<%~ %>` is only for HTML the renderer made safe (sanitised bodies, the footer). */
const htmlEta = new Eta({ autoEscape: true, autoTrim: false });
/** The plain-text part: values go in as they are. */
const textEta = new Eta({ autoEscape: false, autoTrim: false });

/** A default body compiled for both parts of the message. */
export interface CompiledEmail {
  html: TemplateFunction;
  text: TemplateFunction;
}

const compiled = new Map<string, Promise<CompiledEmail>>();

/** The layout a custom (admin-edited) body is shown in: the default bodies' header and footer around it. */
export const CUSTOM_BODY_TEMPLATE = 'custom-body.mjml';

export function emailTemplatesDir(host: Host): string {
  return path.join(host.paths.pluginRoot, host.manifest.templates, 'email');
}

const ETA_TAG = /<%[\s\S]*?%>/g;
const PLACEHOLDER = /\u0000(\d+)\u0000/g;

/**
 * The text template of a compiled body: its HTML turned to text with the eta tags kept where they were (set aside as
 * placeholders while the markup goes). A tag inside an attribute goes with its element, so templates keep control flow
 * (`<% if %>`, loops) out of attributes.
 */
function textTemplate(html: string): string {
  const tags: string[] = [];
  const marked = html.replace(ETA_TAG, (tag) => `\u0000${tags.push(tag) - 1}\u0000`);
  return htmlToText(marked).replace(PLACEHOLDER, (_, index: string) => tags[Number(index)]);
}

async function compile(dir: string, file: string): Promise<CompiledEmail> {
  // mjml takes a quarter of a second to load: only a process that renders an email pays for it.
  const mjml2html = require('mjml') as typeof import('mjml');
  const { html } = await mjml2html(await fs.readFile(file, 'utf8'), {
    filePath: file,
    ignoreIncludes: false,
    includePath: dir,
    validationLevel: 'strict',
    keepComments: false,
  });
  // MJML indents its output: a quarter of the bytes every message would carry.
  const compact = html.replace(/\s+/g, ' ');
  return { html: htmlEta.compile(compact), text: textEta.compile(textTemplate(compact)) };
}

/**
 * An MJML template under `dir` (`order/paid-customer.mjml`), compiled to responsive HTML once per process, then to an
 * eta function for the HTML part and one for the text part; data goes in at every render. A compile that failed is
 * tried again next time.
 */
export function compiledTemplate(dir: string, name: string): Promise<CompiledEmail> {
  const file = path.join(dir, name);
  let template = compiled.get(file);
  if (!template) {
    template = compile(dir, file);
    compiled.set(file, template);
    template.catch(() => compiled.delete(file));
  }
  return template;
}

/** Both parts of a message; in the text part, `footer` and `body` (admin HTML) are their plain text. */
export function renderCompiled<T extends { footer: string; body: string }>(template: CompiledEmail, data: T): { html: string; text: string } {
  return {
    html: htmlEta.render(template.html, data),
    text: tidyText(textEta.render(template.text, { ...data, footer: data.footer && htmlToText(data.footer), body: data.body && htmlToText(data.body) })),
  };
}
