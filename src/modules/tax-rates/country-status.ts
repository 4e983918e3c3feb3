import type { Knex } from 'knex';
import type { Host } from '../../host/contract';
import { transaction, type Ctx } from '../../core/context';
import { countryName, isKnownCountry } from '../../core/address';
import { retryOnLockConflict } from '../../core/db';
import { fail } from '../../core/errors';
import { recordActivity } from '../activities/service';
import { EU_MEMBERS } from './regions';
import type { CountryStatusChange } from './types';

declare module '../../host/contract' {
  interface OptionMap {
    /** Tax collection per country (ISO 3166-1 alpha-2): 0 off, 1 on; a country missing from the map collects tax. */
    tax_country_status: Record<string, 0 | 1>;
  }
}

const STATUS_OPTION = 'tax_country_status';

/** `de` → `DE` for a known ISO 3166-1 alpha-2 code; otherwise 422 'Invalid country code'. */
export function countryCodeParam(text: string): string {
  const code = text.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code) || !isKnownCountry(code)) {
    throw fail('validation_error', 'Invalid country code', { errors: { country_code: { country: 'Invalid country code' } } });
  }
  return code;
}

/** Whether tax is collected for `country` (option `tax_country_status`; on unless turned off). Reads through `trx` inside one. */
export async function isTaxCollectionEnabled(host: Host, country: string, trx?: Knex.Transaction): Promise<boolean> {
  const status = await host.options.get(STATUS_OPTION, {}, trx);
  const code = country.trim().toUpperCase();
  return !Object.hasOwn(status, code) || status[code] !== 0;
}

/**
 * Turns tax collection on or off for a country, or for every EU member with `EU`. The option's row is read locked
 * (not from the options cache) and written in the same transaction, so concurrent changes of other countries are kept.
 */
export async function setCountryStatus(ctx: Ctx, codeText: string, enabled: 0 | 1): Promise<CountryStatusChange & { message: string }> {
  const union = codeText.trim().toUpperCase() === 'EU';
  const code = union ? 'EU' : countryCodeParam(codeText);
  const countries = union ? [...EU_MEMBERS] : [code];
  const place = union ? 'the European Union' : countryName(code);
  const change: CountryStatusChange = { code, countries, enabled };
  await retryOnLockConflict(() =>
    transaction(ctx, async (trx, afterCommit) => {
      const previous = await ctx.host.options.lock(STATUS_OPTION, {}, trx);
      await ctx.host.options.set(STATUS_OPTION, { ...previous, ...Object.fromEntries(countries.map((country) => [country, enabled])) }, trx);
      await recordActivity(
        trx,
        ctx,
        { object_type: 'tax_rate', object_id: 0, title: enabled ? 'Tax collection enabled' : 'Tax collection disabled', content: `${place} (${code})` },
        afterCommit,
      );
      afterCommit(() => ctx.hooks.doAction('store/tax/country_status_changed', change));
    }),
  );
  return { ...change, message: `Tax collection has been ${enabled ? 'enabled' : 'disabled'} for ${place}` };
}
