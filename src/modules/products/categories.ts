import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { transaction, type Ctx } from '../../core/context';
import { insertedId } from '../../core/db';
import { rejected, throwIfAny, fail, type FieldErrors } from '../../core/errors';
import { slugify } from '../../core/slug';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { renameCategoryOverrides } from '../tax-overrides/repo';
import { removeCategoryOverrides } from '../tax-overrides/service';
import { presentCategory, type CategoryRow } from './presenter';
import type { CategoryBody, CategoryPatch } from './schemas';
import type { Category } from './types';
import { isUniqueViolation, requiredText, slugTaken, uniqueSlug } from './validation';

const CATEGORIES = 'store_product_categories';

const nowOf = (ctx: Ctx) => toTimestamp(ctx.clock.now());

async function findCategory(db: Knex | Knex.Transaction, id: number): Promise<Category> {
  const row = (await db(CATEGORIES).where({ id }).first()) as CategoryRow | undefined;
  if (!row) throw fail('not_found', 'Category not found');
  return presentCategory(row);
}

/** Parent checks: it exists, and (for an existing category) it is not the category itself or one of its descendants. */
async function parentErrors(db: Knex | Knex.Transaction, parentId: number | null | undefined, categoryId?: number): Promise<FieldErrors> {
  if (parentId === null || parentId === undefined) return {};
  if (!(await db(CATEGORIES).where({ id: parentId }).first('id'))) return { parent_id: { exists: 'The selected parent id is invalid.' } };
  if (categoryId === undefined) return {};
  const seen = new Set<number>();
  for (let current: number | null = parentId; current !== null && !seen.has(current);) {
    if (current === categoryId) return { parent_id: { ancestor: 'A category cannot be its own ancestor.' } };
    seen.add(current);
    const row = (await db(CATEGORIES).where({ id: current }).first('parent_id')) as { parent_id: number | string | null } | undefined;
    current = row?.parent_id === null || row?.parent_id === undefined ? null : Number(row.parent_id);
  }
  return {};
}

function slugConflict(error: unknown): never {
  if (isUniqueViolation(error, CATEGORIES, 'slug')) throw rejected({ slug: { unique: 'The slug has already been taken.' } });
  throw error;
}

/** Every category, ordered by name. */
export async function listCategories(ctx: Ctx): Promise<Category[]> {
  const rows = (await ctx.db(CATEGORIES).orderBy(['name', 'id'])) as CategoryRow[];
  return rows.map(presentCategory);
}

export const getCategory = (ctx: Ctx, id: number) => findCategory(ctx.db, id);

export async function createCategory(ctx: Ctx, input: Static<typeof CategoryBody>): Promise<Category> {
  const errors: FieldErrors = {};
  const name = requiredText(input.name, 'name', errors);
  throwIfAny(errors);
  return transaction(ctx, async (trx, afterCommit) => {
    throwIfAny({ ...(input.slug ? await slugTaken(trx, CATEGORIES, input.slug) : {}), ...(await parentErrors(trx, input.parent_id)) });
    const slug = input.slug ?? (await uniqueSlug(trx, CATEGORIES, slugify(name, 'category')));
    const now = nowOf(ctx);
    const id = insertedId(
      await trx(CATEGORIES)
        .insert({ name, slug, parent_id: input.parent_id ?? null, created_at: now, updated_at: now })
        .catch(slugConflict),
    );
    const category = await findCategory(trx, id);
    await recordActivity(trx, ctx, { object_type: 'category', object_id: id, title: 'Category created', content: category.name }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/category/created', category));
    return category;
  });
}

export async function updateCategory(ctx: Ctx, id: number, input: Static<typeof CategoryPatch>): Promise<Category> {
  const errors: FieldErrors = {};
  const changes: Partial<CategoryRow> = {};
  if (input.name !== undefined) changes.name = requiredText(input.name, 'name', errors);
  if (input.slug !== undefined) changes.slug = input.slug;
  if (input.parent_id !== undefined) changes.parent_id = input.parent_id;
  throwIfAny(errors);
  return transaction(ctx, async (trx, afterCommit) => {
    const previous = await findCategory(trx, id);
    throwIfAny({
      ...(changes.slug !== undefined ? await slugTaken(trx, CATEGORIES, changes.slug, id) : {}),
      ...(await parentErrors(trx, input.parent_id, id)),
    });
    await trx(CATEGORIES)
      .where({ id })
      .update({ ...changes, updated_at: nowOf(ctx) })
      .catch(slugConflict);
    const category = await findCategory(trx, id);
    if (category.name !== previous.name) await renameCategoryOverrides(trx, id, category.name, nowOf(ctx));
    const changed = (['name', 'slug', 'parent_id'] as const).filter((key) => category[key] !== previous[key]);
    await recordActivity(
      trx,
      ctx,
      { object_type: 'category', object_id: id, title: 'Category updated', content: `${category.name}: ${changed.length ? changed.join(', ') : 'no changes'}` },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/category/updated', category, previous));
    return category;
  });
}

/** Deletes a category: its products lose it, its children move up to its parent, its tax overrides go with it. */
export async function deleteCategory(ctx: Ctx, id: number): Promise<void> {
  await transaction(ctx, async (trx, afterCommit) => {
    const category = await findCategory(trx, id);
    await trx(CATEGORIES)
      .where({ parent_id: id })
      .update({ parent_id: category.parent_id, updated_at: nowOf(ctx) });
    await trx('store_product_category_relations').where({ category_id: id }).delete();
    await trx(CATEGORIES).where({ id }).delete();
    const overrides = await removeCategoryOverrides(trx, ctx, id, afterCommit);
    const removed = overrides ? ` (${overrides} tax override${overrides === 1 ? '' : 's'} removed)` : '';
    await recordActivity(trx, ctx, { object_type: 'category', object_id: id, title: 'Category deleted', content: `${category.name}${removed}` }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/category/deleted', category));
  });
}
