import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { isKnownCountry } from '../../core/address';
import { transaction, type Ctx } from '../../core/context';
import { insertedId, lockForUpdate, type AfterCommit } from '../../core/db';
import { fail, invalid } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { overrideInput, sameScope } from './fields';
import { classTitles, deleteCategoryRows, overrideRows, overrideValue, presentOverride, type OverrideRow } from './repo';
import { INVALID_COUNTRY, type OverrideBody } from './schemas';
import { OVERRIDE_META_KEY, OVERRIDE_OBJECT_TYPE, type OverrideValue, type TaxOverride } from './types';

const META = 'store_meta';
const NOT_FOUND = 'Tax override not found';

/** `US:CA, Los Angeles, 90001` (only the parts it has). */
const place = (value: OverrideValue) =>
  [value.state ? `${value.country}:${value.state}` : value.country, value.city, value.postcode].filter(Boolean).join(', ');

/** What the activity log says about an override: `Books (#3) in US:CA: 5%` or `… taxed as Reduced`. */
function describe(override: TaxOverride): string {
  const value = override.meta_value;
  const tax = value.class_id ? `taxed as ${override.class_label || `class #${value.class_id}`}` : `${value.rate}%`;
  return `${value.category_name} (#${value.category_id}) in ${place(value)}: ${tax}`;
}

async function findOverride(db: Knex | Knex.Transaction, id: number, titles?: Map<number, string>, lock = false): Promise<TaxOverride> {
  const query = overrideRows(db).where({ id });
  const row = (await (lock ? lockForUpdate(query, db) : query).first()) as OverrideRow | undefined;
  if (!row) throw fail('not_found', NOT_FOUND);
  return presentOverride(row, titles ?? (await classTitles(db)));
}

/** The overrides of one country (any case), in id order. */
export async function listOverrides(ctx: Ctx, countryCode: string): Promise<TaxOverride[]> {
  if (!isKnownCountry(countryCode)) throw invalid('country_code', 'in', INVALID_COUNTRY);
  const country = countryCode.toUpperCase();
  const [rows, titles] = await Promise.all([overrideRows(ctx.db) as Promise<OverrideRow[]>, classTitles(ctx.db)]);
  return rows.filter((row) => overrideValue(row.meta_value).country === country).map((row) => presentOverride(row, titles));
}

/**
 * Creates or updates an override. With `id`, that override is rewritten (404 when missing); without, the category's
 * override for the same place and class is updated in place, else one is created. The category's row is locked first
 * (and nothing is read before it), so parallel saves of one category run one after the other and each sees what the
 * previous one committed: there are never two overrides with the same scope. With `source_type: shipping` the tax
 * rate `source_id` loses its shipping override in the same transaction.
 */
export async function saveOverride(ctx: Ctx, body: Static<typeof OverrideBody>): Promise<TaxOverride> {
  const input = await overrideInput(body);
  return transaction(ctx, async (trx, afterCommit) => {
    const category = (await lockForUpdate(trx('store_product_categories').where({ id: input.value.category_id }), trx).first('name')) as
      { name: string } | undefined;
    if (!category) throw invalid('category_id', 'exists', 'The selected category id is invalid.');
    // Locked so that a class delete running meanwhile waits, then moves this override to Standard with the others.
    if (input.value.class_id && !(await lockForUpdate(trx('store_tax_classes').where({ id: input.value.class_id }), trx).first('id'))) {
      throw invalid('class_id', 'exists', 'The selected class id is invalid.');
    }
    const titles = await classTitles(trx);
    const value: OverrideValue = { ...input.value, category_name: category.name };

    const siblings = ((await overrideRows(trx).where({ object_id: value.category_id })) as OverrideRow[]).filter((row) =>
      sameScope(overrideValue(row.meta_value), value),
    );
    let previous: TaxOverride | null = null;
    if (input.id !== null) {
      previous = await findOverride(trx, input.id, titles, true);
      const other = siblings.find((row) => Number(row.id) !== input.id);
      if (other) throw invalid('id', 'unique', `Tax override #${Number(other.id)} already covers this category, place and class.`);
    } else if (siblings.length) {
      previous = presentOverride(siblings[0], titles);
    }

    if (input.sourceRateId !== null) {
      const rate = await lockForUpdate(trx('store_tax_rates').where({ id: input.sourceRateId }), trx).first('id');
      if (!rate) throw fail('not_found', 'Tax rate not found');
    }

    const now = toTimestamp(ctx.clock.now());
    const columns = { object_id: value.category_id, meta_value: JSON.stringify(value), updated_at: now };
    const id = previous
      ? (await trx(META).where({ id: previous.id }).update(columns), previous.id)
      : insertedId(await trx(META).insert({ ...columns, object_type: OVERRIDE_OBJECT_TYPE, meta_key: OVERRIDE_META_KEY, created_at: now }));
    if (input.sourceRateId !== null) await trx('store_tax_rates').where({ id: input.sourceRateId }).update({ for_shipping: null, updated_at: now });

    const override = await findOverride(trx, id, titles);
    const converted = input.sourceRateId === null ? '' : `; replaces the shipping override of tax rate #${input.sourceRateId}`;
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'tax_override',
        object_id: id,
        title: previous ? 'Tax override updated' : 'Tax override created',
        content: `${describe(override)}${converted}`,
      },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/tax_override/saved', override, previous, input.sourceRateId));
    return override;
  });
}

export async function deleteOverride(ctx: Ctx, id: number): Promise<void> {
  await transaction(ctx, async (trx, afterCommit) => {
    const override = await findOverride(trx, id, undefined, true);
    await trx(META).where({ id }).delete();
    await recordActivity(trx, ctx, { object_type: 'tax_override', object_id: id, title: 'Tax override deleted', content: describe(override) }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/tax_override/deleted', override));
  });
}

/**
 * Removes a category's overrides inside the transaction deleting the category (they are meta rows, with no foreign
 * key), each logged with `store/tax_override/deleted` after the commit; answers how many there were.
 */
export async function removeCategoryOverrides(trx: Knex.Transaction, ctx: Ctx, categoryId: number, afterCommit: AfterCommit): Promise<number> {
  const overrides = await deleteCategoryRows(trx, categoryId);
  for (const override of overrides) {
    await recordActivity(
      trx,
      ctx,
      { object_type: 'tax_override', object_id: override.id, title: 'Tax override deleted', content: `${describe(override)}; its category was deleted` },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/tax_override/deleted', override));
  }
  return overrides.length;
}
