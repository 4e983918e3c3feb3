import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { insertedId, lockForUpdate, parseJson, retryOnLockConflict } from '../../core/db';
import { AppError, fail, invalid } from '../../core/errors';
import { slugify } from '../../core/slug';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { findTaxClass, listTaxClasses, TAX_CLASSES } from './lookup';
import type { TaxClassBody } from './schemas';
import { BUILTIN_CLASSES, MAX_TAX_CLASSES, STANDARD_SLUG, type TaxClass, type TaxClassFallback, type TaxClassList } from './types';

const MAX_TITLE = 30;
/** The longest slug a variation's `tax_class` holds (products/schemas.ts). */
const MAX_SLUG = 50;

export async function getTaxClasses(ctx: Ctx): Promise<TaxClassList> {
  const classes = await listTaxClasses(ctx.db);
  const taken = new Set(classes.map((c) => c.slug));
  const next = BUILTIN_CLASSES.find((builtin) => !taken.has(builtin.slug));
  return { classes, max_classes: MAX_TAX_CLASSES, next_builtin: next ? { slug: next.slug, title: next.title } : null };
}

const sameTitle = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;

function checkTitleLength(title: string): void {
  const message = `Tax class name must be ${MAX_TITLE} characters or fewer`;
  if (Array.from(title).length > MAX_TITLE) throw invalid('title', 'max', message);
}

/**
 * The slug of a class titled `title`: its slug form (`Reduced rate` → `reduced-rate`, which may be a built-in's slug:
 * the class then is that built-in). A title with nothing a slug can hold (`税`) gets `class_1`, `class_2`…, the first
 * free: no title turns into a slug with `_`, so these never take a slug a title would want.
 */
function slugFor(title: string, classes: TaxClass[]): string {
  const slug = slugify(title, '', MAX_SLUG);
  if (slug) return slug;
  const taken = new Set(classes.map((c) => c.slug));
  let n = 1;
  while (taken.has(`class_${n}`)) n++;
  return `class_${n}`;
}

/** The slug and title of the class to create, or the spec's refusal (in the spec's order of checks). */
function chooseClass(input: Static<typeof TaxClassBody>, classes: TaxClass[]): { slug: string; title: string } {
  const title = (input.title ?? '').trim();
  const wanted = (input.slug ?? '').trim().toLowerCase();
  const builtin = BUILTIN_CLASSES.find((b) => b.slug === wanted);
  if (builtin) {
    if (classes.some((c) => c.slug === builtin.slug)) throw fail('locked', 'This tax class already exists');
    checkTitleLength(title);
    const chosen = { slug: builtin.slug, title: title || builtin.title };
    if (classes.some((c) => sameTitle(c.title, chosen.title))) throw fail('locked', 'A tax class with this name already exists');
    return chosen;
  }
  if (!title) throw fail('locked', 'Tax class name is required');
  checkTitleLength(title);
  const slug = slugFor(title, classes);
  if (classes.some((c) => c.slug === slug || sameTitle(c.title, title))) throw fail('locked', 'A tax class with this name already exists');
  return { slug, title };
}

/**
 * Creates a class. Every class write first locks all class rows (there are at most six), so parallel creates count and
 * check slugs one after the other: never a seventh class, never two with one slug.
 */
export async function createTaxClass(ctx: Ctx, input: Static<typeof TaxClassBody>): Promise<TaxClass> {
  return transaction(ctx, async (trx, afterCommit) => {
    const classes = await listTaxClasses(trx, 'update');
    if (classes.length >= MAX_TAX_CLASSES) throw fail('locked', `Maximum of ${MAX_TAX_CLASSES} tax classes allowed`);
    const { slug, title } = chooseClass(input, classes);
    const now = toTimestamp(ctx.clock.now());
    const id = insertedId(await trx(TAX_CLASSES).insert({ title, slug, meta: '[]', created_at: now, updated_at: now }));
    const created = (await findTaxClass(trx, id)) as TaxClass;
    await recordActivity(trx, ctx, { object_type: 'tax_class', object_id: id, title: 'Tax class created', content: `${title} (${slug})` }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/tax_class/created', created));
    return created;
  });
}

const OVERRIDE_ROWS = { object_type: 'tax_override', meta_key: 'product_category_override' };

/** Points every product-category override of class `from` at class `to`; how many changed. */
async function moveOverrides(trx: Knex.Transaction, from: number, to: number, now: string): Promise<number> {
  const rows = (await lockForUpdate(trx('store_meta').where(OVERRIDE_ROWS).orderBy('id').select('id', 'meta_value'), trx)) as Array<{
    id: number | string;
    meta_value: unknown;
  }>;
  let moved = 0;
  for (const row of rows) {
    const value = parseJson<Record<string, unknown> | null>(row.meta_value, null);
    if (!value || Number(value.class_id) !== from) continue;
    await trx('store_meta')
      .where({ id: row.id })
      .update({ meta_value: JSON.stringify({ ...value, class_id: to }), updated_at: now });
    moved++;
  }
  return moved;
}

/** Everything that referenced `doomed` now uses `standard`: variations (by slug), rates and overrides (by id), the shipping tax class setting. */
async function fallBackToStandard(ctx: Ctx, trx: Knex.Transaction, doomed: TaxClass, standard: TaxClass): Promise<TaxClassFallback> {
  const now = toTimestamp(ctx.clock.now());
  const variations = await trx('store_product_variations').where({ tax_class: doomed.slug }).update({ tax_class: standard.slug, updated_at: now });
  const rates = await trx('store_tax_rates').where({ class_id: doomed.id }).update({ class_id: standard.id, updated_at: now });
  const overrides = await moveOverrides(trx, doomed.id, standard.id, now);
  const settings = await ctx.host.options.get('store_settings', {}, trx);
  const shipping = settings.shipping_tax_class === doomed.slug;
  if (shipping) await ctx.host.options.set('store_settings', { ...settings, shipping_tax_class: standard.slug }, trx);
  return { standard, variations, rates, overrides, shipping_tax_class: shipping };
}

function describeFallback(doomed: TaxClass, moved: TaxClassFallback): string {
  const parts = [
    [moved.variations, 'variation'],
    [moved.rates, 'rate'],
    [moved.overrides, 'category override'],
  ] as const;
  const counted = parts.filter(([n]) => n > 0).map(([n, noun]) => `${n} ${noun}${n === 1 ? '' : 's'}`);
  if (moved.shipping_tax_class) counted.push('the shipping tax class');
  return `${doomed.title} (${doomed.slug})${counted.length ? `; moved to ${moved.standard.title}: ${counted.join(', ')}` : ''}`;
}

/**
 * Deletes a class; in the same transaction everything that referenced it falls back to the Standard class. A database
 * failure is the spec's 400 (logged); a lost lock conflict is retried first.
 */
export async function deleteTaxClass(ctx: Ctx, id: number): Promise<void> {
  try {
    await retryOnLockConflict(() =>
      transaction(ctx, async (trx, afterCommit) => {
        const classes = await listTaxClasses(trx, 'update');
        const doomed = classes.find((c) => c.id === id);
        if (!doomed) throw fail('not_found', 'Tax class not found');
        if (doomed.slug === STANDARD_SLUG) throw fail('locked', 'Cannot delete the Standard tax class');
        const standard = classes.find((c) => c.slug === STANDARD_SLUG);
        if (!standard) throw fail('locked', 'Standard tax class could not be found');
        const moved = await fallBackToStandard(ctx, trx, doomed, standard);
        await trx(TAX_CLASSES).where({ id }).delete();
        await recordActivity(
          trx,
          ctx,
          { object_type: 'tax_class', object_id: id, title: 'Tax class deleted', content: describeFallback(doomed, moved) },
          afterCommit,
        );
        afterCommit(() => ctx.hooks.doAction('store/tax_class/deleted', doomed, moved));
      }),
    );
  } catch (error) {
    if (error instanceof AppError) throw error;
    ctx.host.logger.error({ err: error, tax_class_id: id }, 'tax class could not be deleted');
    throw fail('invalid_state', 'Failed to delete tax class', { status: 400 });
  }
}
