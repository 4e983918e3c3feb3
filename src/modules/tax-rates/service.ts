import type { Knex } from 'knex';
import { countryName } from '../../core/address';
import { transaction, type Ctx } from '../../core/context';
import { insertedId, lockForUpdate } from '../../core/db';
import { fail, invalid } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { findTaxClass } from '../tax-classes/lookup';
import { countryCodeParam, isTaxCollectionEnabled } from './country-status';
import { parsePercentage, refuse, resolveRateFields, storedPercentage, type RateFields, type RateInput } from './fields';
import { rateFormSettings } from './form-settings';
import { presentRate } from './presenter';
import { countryGroup, isTaxGroupCode, TAX_GROUPS, taxGroupName, type TaxGroupCode } from './regions';
import type { CountryRates, CountryRatesSummary, RegionRates, TaxRate, TaxRateRow, TaxRateWithClass } from './types';

const RATES = 'store_tax_rates';

const byPriority = [{ column: 'priority' }, { column: 'id' }];

const notFound = () => fail('not_found', 'Tax rate not found');
const unknownClass = () => invalid('class_id', 'exists', 'The selected tax class does not exist.');

async function lockedRow(trx: Knex.Transaction, id: number): Promise<TaxRateRow> {
  const [row] = (await lockForUpdate(trx(RATES).where({ id }).select('*'), trx)) as TaxRateRow[];
  if (!row) throw notFound();
  return row;
}

/** The class a rate names, share-locked until the commit so that a concurrent class delete waits; null for class 0. */
async function rateClass(trx: Knex.Transaction, classId: number): Promise<{ id: number; title: string } | null> {
  if (classId === 0) return null;
  const found = await findTaxClass(trx, classId, 'share');
  if (!found) throw unknownClass();
  return { id: found.id, title: found.title };
}

async function withClass(trx: Knex.Transaction, id: number, taxClass: TaxRateWithClass['tax_class']): Promise<TaxRateWithClass> {
  const row = (await trx(RATES).where({ id }).first()) as TaxRateRow;
  return { ...(await presentRate(row)), tax_class: taxClass };
}

const fieldsOf = (rate: TaxRate): RateFields => ({
  class_id: rate.class_id,
  country: rate.country,
  state: rate.state,
  postcode: rate.postcode,
  city: rate.city,
  rate: rate.rate,
  name: rate.name,
  group: rate.group,
  priority: rate.priority,
  is_compound: rate.is_compound,
  for_shipping: rate.for_shipping === null ? null : storedPercentage(rate.for_shipping),
  for_order: rate.for_order,
});

const summary = (rate: Pick<TaxRate, 'id' | 'name' | 'country' | 'state' | 'rate'>) =>
  `${rate.name || 'Unnamed rate'} (#${rate.id}): ${rate.country}${rate.state ? ` ${rate.state}` : ''} ${rate.rate}%`;

// ---------------------------------------------------------------------------------------------------------------
// Reads

/** Every rate, by region (in `TAX_GROUPS` order), then country (by name); each country's rates by priority, then id. */
export async function listRatesByRegion(ctx: Ctx): Promise<RegionRates[]> {
  const rows = (await ctx.db(RATES).select('country', 'group', 'class_id', 'name', 'rate', 'for_shipping').orderBy(byPriority)) as Array<
    Pick<TaxRateRow, 'country' | 'group' | 'class_id' | 'name' | 'rate' | 'for_shipping'>
  >;
  const regions = new Map<TaxGroupCode, Map<string, CountryRatesSummary>>();
  for (const row of rows) {
    const code = isTaxGroupCode(row.group) ? row.group : countryGroup(row.country);
    if (!code) continue;
    const countries = regions.get(code) ?? new Map<string, CountryRatesSummary>();
    regions.set(code, countries);
    const country = countries.get(row.country) ?? { country_code: row.country, country_name: countryName(row.country), rates: [], total_rates: 0 };
    countries.set(row.country, country);
    country.rates.push({
      class_id: Number(row.class_id),
      name: row.name,
      rate: row.rate,
      for_shipping: row.for_shipping === null ? null : Number(row.for_shipping),
    });
    country.total_rates += 1;
  }
  return TAX_GROUPS.flatMap(({ code }) => {
    const countries = [...(regions.get(code)?.values() ?? [])].sort((a, b) => a.country_name.localeCompare(b.country_name, 'en'));
    return countries.length ? [{ group_name: taxGroupName(code), group_code: code, countries, total_countries: countries.length }] : [];
  });
}

/** A country's rates (optionally of one class: 0 = the rates without a class), its rate form settings and collection status. */
export async function countryRates(ctx: Ctx, codeText: string, classId: number | undefined): Promise<CountryRates> {
  const country = countryCodeParam(codeText);
  if (classId !== undefined && classId !== 0 && !(await findTaxClass(ctx.db, classId))) throw unknownClass();
  const query = ctx.db(RATES).where({ country }).orderBy(byPriority);
  if (classId !== undefined) query.where({ class_id: classId });
  const rows = (await query) as TaxRateRow[];
  return {
    tax_rates: await Promise.all(rows.map(presentRate)),
    settings: rateFormSettings(country),
    tax_enabled: await isTaxCollectionEnabled(ctx.host, country),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Writes

export async function createRate(ctx: Ctx, input: RateInput): Promise<TaxRateWithClass> {
  const fields = await resolveRateFields(input, null);
  return transaction(ctx, async (trx, afterCommit) => {
    const taxClass = await rateClass(trx, fields.class_id);
    const now = toTimestamp(ctx.clock.now());
    const id = insertedId(await trx(RATES).insert({ ...fields, created_at: now, updated_at: now }));
    const rate = await withClass(trx, id, taxClass);
    await recordActivity(trx, ctx, { object_type: 'tax_rate', object_id: id, title: 'Tax rate created', content: summary(rate) }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/tax_rate/created', rate));
    return rate;
  });
}

/** Updates the fields sent (a field left out keeps its value; null resets it to its default). */
export async function updateRate(ctx: Ctx, id: number, input: RateInput): Promise<TaxRateWithClass> {
  return transaction(ctx, async (trx, afterCommit) => {
    // The class before the rate: a class delete locks the classes, then the rates that use them.
    const taxClass = await rateClass(trx, Number(input.class_id ?? 0));
    const previous = await presentRate(await lockedRow(trx, id));
    const fields = await resolveRateFields(input, fieldsOf(previous));
    const before = fieldsOf(previous);
    const changed = (Object.keys(fields) as Array<keyof RateFields>).filter((key) => fields[key] !== before[key]);
    await trx(RATES)
      .where({ id })
      .update({ ...fields, updated_at: toTimestamp(ctx.clock.now()) });
    const rate = await withClass(trx, id, taxClass);
    await recordActivity(
      trx,
      ctx,
      { object_type: 'tax_rate', object_id: id, title: 'Tax rate updated', content: `${summary(rate)}; ${changed.length ? changed.join(', ') : 'no changes'}` },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/tax_rate/updated', rate, previous));
    return rate;
  });
}

export async function deleteRate(ctx: Ctx, id: number): Promise<void> {
  await transaction(ctx, async (trx, afterCommit) => {
    const rate = await presentRate(await lockedRow(trx, id));
    await trx(RATES).where({ id }).delete();
    await recordActivity(trx, ctx, { object_type: 'tax_rate', object_id: id, title: 'Tax rate deleted', content: summary(rate) }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/tax_rate/deleted', rate));
  });
}

/** Sets or clears (`null`) a rate's shipping override; clearing a rate without one changes nothing. */
async function writeShippingOverride(ctx: Ctx, id: number, forShipping: string | null): Promise<void> {
  await transaction(ctx, async (trx, afterCommit) => {
    const previous = await presentRate(await lockedRow(trx, id));
    if (forShipping === null && previous.for_shipping === null) return;
    await trx(RATES)
      .where({ id })
      .update({ for_shipping: forShipping, updated_at: toTimestamp(ctx.clock.now()) });
    const rate = await presentRate((await trx(RATES).where({ id }).first()) as TaxRateRow);
    const title = forShipping === null ? 'Shipping tax override deleted' : 'Shipping tax override saved';
    const content = forShipping === null ? summary(rate) : `${summary(rate)}; shipping ${forShipping}%`;
    await recordActivity(trx, ctx, { object_type: 'tax_rate', object_id: id, title, content }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/tax_rate/updated', rate, previous));
  });
}

/** `POST /tax/rates/country/override`: shipping is taxed at `override_tax_rate` percent instead of the rate. */
export async function saveShippingOverride(ctx: Ctx, id: number, overrideRate: number | string): Promise<void> {
  const parsed = parsePercentage(overrideRate, 'override_tax_rate');
  if ('error' in parsed) refuse({ override_tax_rate: parsed.error });
  else await writeShippingOverride(ctx, id, parsed.value);
}

export const deleteShippingOverride = (ctx: Ctx, id: number) => writeShippingOverride(ctx, id, null);
