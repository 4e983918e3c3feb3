import countries from 'i18n-iso-countries';
import type { Static } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { addressRules } from '../../core/address';
import { transaction, type Ctx } from '../../core/context';
import { insertedId, parseJson } from '../../core/db';
import { fail, invalid, type FieldErrors } from '../../core/errors';
import { toTimestamp } from '../../core/time';
import { recordActivity } from '../activities/service';
import { isUniqueViolation } from '../products/validation';
import { availableMethods, chargeFor, normalizeDestination, physicalTotals } from './calculator';
import type { MethodBody, MethodListQuery, MethodPatch, ZoneBody, ZonePatch } from './schemas';
import type { ChargeType, PricedShippingMethod, ShippingDestination, ShippingItem, ShippingMethod, ShippingMethodStatus, ShippingZone } from './types';

type Db = Knex | Knex.Transaction;

const ZONES = 'store_shipping_zones';
const METHODS = 'store_shipping_methods';

interface ZoneRow {
  id: number | string;
  name: string;
  countries: unknown;
  states: unknown;
  is_rest_of_world: number | string;
  position: number | string;
  created_at: string;
  updated_at: string;
}

interface MethodRow {
  id: number | string;
  zone_id: number | string;
  title: string;
  charge_type: ChargeType;
  charge_amount: number | string;
  free_above: number | string | null;
  status: ShippingMethodStatus;
  position: number | string;
  created_at: string;
  updated_at: string;
}

/** A method row joined with its zone's countries and states. */
interface MethodZoneRow extends MethodRow {
  zone_countries: unknown;
  zone_states: unknown;
}

const codes = (value: unknown): string[] => {
  const list = parseJson<unknown>(value, []);
  return Array.isArray(list) ? list.filter((c): c is string => typeof c === 'string') : [];
};

/** `US:CA` → `CA`, as the spec's shipping method shows states. */
const plainStates = (states: string[]): string[] => [...new Set(states.map((s) => s.slice(s.indexOf(':') + 1)))];

function presentZone(row: ZoneRow, methods?: ShippingMethod[]): ShippingZone {
  return {
    id: Number(row.id),
    name: row.name,
    countries: codes(row.countries),
    states: codes(row.states),
    is_rest_of_world: Number(row.is_rest_of_world) ? 1 : 0,
    position: Number(row.position),
    ...(methods ? { methods } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function presentMethod(row: MethodRow, zone: { countries: string[]; states: string[] }): ShippingMethod {
  return {
    id: Number(row.id),
    zone_id: Number(row.zone_id),
    title: row.title,
    charge_type: row.charge_type,
    charge_amount: Number(row.charge_amount),
    free_above: row.free_above === null ? null : Number(row.free_above),
    status: row.status,
    countries: zone.countries,
    states: plainStates(zone.states),
    position: Number(row.position),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const presentJoined = (row: MethodZoneRow): ShippingMethod => presentMethod(row, { countries: codes(row.zone_countries), states: codes(row.zone_states) });

/** Zones in listing order: position, then id, the rest-of-world zone last. */
const orderedZones = (db: Db) =>
  db(ZONES)
    .select('*')
    .orderBy([{ column: 'is_rest_of_world' }, { column: 'position' }, { column: 'id' }]);

/** Methods with their zone's codes, in the zones' order, then position and id. */
const joinedMethods = (db: Db) =>
  db(`${METHODS} as m`)
    .join(`${ZONES} as z`, 'z.id', 'm.zone_id')
    .select('m.*', 'z.countries as zone_countries', 'z.states as zone_states')
    .orderBy([{ column: 'z.is_rest_of_world' }, { column: 'z.position' }, { column: 'z.id' }, { column: 'm.position' }, { column: 'm.id' }]);

async function findZone(db: Db, id: number): Promise<ShippingZone> {
  const row = (await db(ZONES).where({ id }).first()) as ZoneRow | undefined;
  if (!row) throw fail('not_found', 'Shipping zone not found');
  const zone = presentZone(row);
  const rows = (await db(METHODS)
    .where({ zone_id: id })
    .orderBy([{ column: 'position' }, { column: 'id' }])) as MethodRow[];
  return { ...zone, methods: rows.map((m) => presentMethod(m, zone)) };
}

async function findMethod(db: Db, id: number): Promise<ShippingMethod> {
  const row = (await joinedMethods(db).where('m.id', id).first()) as MethodZoneRow | undefined;
  if (!row) throw fail('not_found', 'Shipping method not found');
  return presentJoined(row);
}

function refuse(errors: FieldErrors): void {
  const first = Object.values(errors)[0];
  if (first) throw fail('validation_error', Object.values(first)[0], { errors });
}

// ---------------------------------------------------------------------------------------------------------------
// Zones

interface ZoneFields {
  name: string;
  countries: string[];
  states: string[];
  is_rest_of_world: 0 | 1;
  position: number;
}

const upperUnique = (list: string[]): string[] => [...new Set(list.map((c) => c.trim().toUpperCase()))];

/** The rules a zone must satisfy as a whole (the schema has checked each field's shape). */
function checkZone(zone: ZoneFields): FieldErrors {
  const errors: FieldErrors = {};
  if (!zone.name) errors.name = { required: 'The name field is required.' };
  if (zone.is_rest_of_world) {
    if (zone.countries.length) errors.countries = { prohibited: 'A rest-of-world zone has no countries: it covers every country no other zone covers.' };
    if (zone.states.length) errors.states = { prohibited: 'A rest-of-world zone has no states.' };
    return errors;
  }
  const unknown = zone.countries.filter((c) => !countries.isValid(c));
  if (!zone.countries.length) errors.countries = { required: 'The countries field is required unless the zone is the rest of the world.' };
  else if (unknown.length) errors.countries = { country: `The countries must be ISO 3166-1 alpha-2 codes; unknown: ${unknown.join(', ')}.` };
  const foreign = zone.states.filter((s) => !zone.countries.includes(s.slice(0, 2)));
  if (foreign.length) errors.states = { country: `Each state must belong to one of the zone's countries: ${foreign.join(', ')}.` };
  return errors;
}

/**
 * Each state (`US:CA`) must be one of its country's states in Google's libaddressinput data (the codes the address
 * forms use): unknown codes, and states of a country that has none (`GB:ENG`), are refused.
 */
async function checkStates(zone: ZoneFields): Promise<FieldErrors> {
  const unknown: string[] = [];
  const stateless: string[] = [];
  for (const state of zone.states) {
    const country = state.slice(0, 2);
    if (!zone.countries.includes(country)) continue;
    const known = (await addressRules(country))?.states ?? [];
    if (!known.length) stateless.push(state);
    else if (!known.some((option) => option.value.toUpperCase() === state.slice(3))) unknown.push(state);
  }
  const errors: FieldErrors = {};
  if (unknown.length) errors.states = { in: `Unknown states: ${unknown.join(', ')}. Use the state codes of the country, such as US:CA.` };
  else if (stateless.length)
    errors.states = { prohibited: `These countries have no states: ${stateless.join(', ')}. Leave the states out to cover the whole country.` };
  return errors;
}

/** `rest_of_world_key` is 1 on the rest-of-world zone and NULL elsewhere: its unique key allows one such zone. */
const zoneColumns = (zone: ZoneFields) => ({
  ...zone,
  countries: JSON.stringify(zone.countries),
  states: JSON.stringify(zone.states),
  rest_of_world_key: zone.is_rest_of_world ? 1 : null,
});

/** Runs a zone's insert or update; a second rest-of-world zone (the unique key, also under parallel requests) is a 422. */
async function oneRestOfWorld<T>(write: () => PromiseLike<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, ZONES, 'rest_of_world_key')) throw invalid('is_rest_of_world', 'unique', 'There is already a rest-of-world zone.');
    throw error;
  }
}

/** Every zone with its methods, in matching order (position, then id; the rest-of-world zone last). */
export async function listZones(ctx: Ctx): Promise<ShippingZone[]> {
  const zones = ((await orderedZones(ctx.db)) as ZoneRow[]).map((row) => presentZone(row, []));
  const byId = new Map(zones.map((zone) => [zone.id, zone]));
  const methods = (await joinedMethods(ctx.db)) as MethodZoneRow[];
  for (const row of methods) {
    const zone = byId.get(Number(row.zone_id));
    zone?.methods?.push(presentMethod(row, zone));
  }
  return zones;
}

export const getZone = (ctx: Ctx, id: number) => findZone(ctx.db, id);

export async function createZone(ctx: Ctx, input: Static<typeof ZoneBody>): Promise<ShippingZone> {
  const fields: ZoneFields = {
    name: input.name.trim(),
    countries: upperUnique(input.countries ?? []),
    states: upperUnique(input.states ?? []),
    is_rest_of_world: input.is_rest_of_world ?? 0,
    position: input.position ?? 0,
  };
  refuse(checkZone(fields));
  refuse(await checkStates(fields));
  return transaction(ctx, async (trx, afterCommit) => {
    const now = toTimestamp(ctx.clock.now());
    const id = insertedId(await oneRestOfWorld(() => trx(ZONES).insert({ ...zoneColumns(fields), created_at: now, updated_at: now })));
    const zone = await findZone(trx, id);
    await recordActivity(trx, ctx, { object_type: 'shipping', object_id: id, title: 'Shipping zone created', content: zone.name }, afterCommit);
    afterCommit(() => ctx.hooks.doAction('store/shipping_zone/created', zone));
    return zone;
  });
}

export async function updateZone(ctx: Ctx, id: number, input: Static<typeof ZonePatch>): Promise<ShippingZone> {
  return transaction(ctx, async (trx, afterCommit) => {
    const previous = await findZone(trx, id);
    const fields: ZoneFields = {
      name: input.name !== undefined ? input.name.trim() : previous.name,
      countries: input.countries !== undefined ? upperUnique(input.countries) : previous.countries,
      states: input.states !== undefined ? upperUnique(input.states) : previous.states,
      is_rest_of_world: input.is_rest_of_world ?? previous.is_rest_of_world,
      position: input.position ?? previous.position,
    };
    refuse(checkZone(fields));
    refuse(await checkStates(fields));
    const changed = (Object.keys(fields) as Array<keyof ZoneFields>).filter((key) => JSON.stringify(fields[key]) !== JSON.stringify(previous[key]));
    await oneRestOfWorld(() =>
      trx(ZONES)
        .where({ id })
        .update({ ...zoneColumns(fields), updated_at: toTimestamp(ctx.clock.now()) }),
    );
    const zone = await findZone(trx, id);
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'shipping',
        object_id: id,
        title: 'Shipping zone updated',
        content: changed.length ? `${zone.name}: ${changed.join(', ')}` : `${zone.name}: no changes`,
      },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/shipping_zone/updated', zone, previous));
    return zone;
  });
}

/** Deletes a zone and its methods; `store/shipping_method/deleted` fires for each method, then `store/shipping_zone/deleted`. */
export async function deleteZone(ctx: Ctx, id: number): Promise<void> {
  await transaction(ctx, async (trx, afterCommit) => {
    const zone = await findZone(trx, id);
    await trx(METHODS).where({ zone_id: id }).delete();
    await trx(ZONES).where({ id }).delete();
    const count = zone.methods?.length ?? 0;
    await recordActivity(
      trx,
      ctx,
      { object_type: 'shipping', object_id: id, title: 'Shipping zone deleted', content: `${zone.name} (${count} method${count === 1 ? '' : 's'})` },
      afterCommit,
    );
    afterCommit(() => {
      for (const method of zone.methods ?? []) ctx.hooks.doAction('store/shipping_method/deleted', method);
      ctx.hooks.doAction('store/shipping_zone/deleted', zone);
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Methods

interface MethodFields {
  zone_id: number;
  title: string;
  charge_type: ChargeType;
  charge_amount: number;
  free_above: number | null;
  status: ShippingMethodStatus;
  position: number;
}

/** The charge rules: flat_rate/per_item need a charge amount and have no free_above; free charges nothing. */
function checkMethod(method: MethodFields, chargeGiven: boolean): FieldErrors {
  const errors: FieldErrors = {};
  if (!method.title) errors.title = { required: 'The title field is required.' };
  if (method.charge_type === 'free') {
    if (method.charge_amount !== 0) errors.charge_amount = { prohibited: 'A free shipping method has no charge amount.' };
  } else {
    if (!chargeGiven) errors.charge_amount = { required: `The charge amount field is required when the charge type is ${method.charge_type}.` };
    if (method.free_above !== null) errors.free_above = { prohibited: 'Only a free shipping method can have a free above amount.' };
  }
  return errors;
}

async function assertZoneExists(db: Db, zoneId: number): Promise<void> {
  if (!(await db(ZONES).where({ id: zoneId }).first('id'))) throw invalid('zone_id', 'exists', 'The selected zone id is invalid.');
}

export async function listMethods(ctx: Ctx, input: Static<typeof MethodListQuery>): Promise<ShippingMethod[]> {
  const query = joinedMethods(ctx.db);
  if (input.zone_id !== undefined) query.where('m.zone_id', input.zone_id);
  if (input.status !== undefined) query.where('m.status', input.status);
  return ((await query) as MethodZoneRow[]).map(presentJoined);
}

export const getMethod = (ctx: Ctx, id: number) => findMethod(ctx.db, id);

export async function createMethod(ctx: Ctx, input: Static<typeof MethodBody>): Promise<ShippingMethod> {
  const fields: MethodFields = {
    zone_id: input.zone_id,
    title: input.title.trim(),
    charge_type: input.charge_type,
    charge_amount: input.charge_amount ?? 0,
    free_above: input.free_above ?? null,
    status: input.status ?? 'active',
    position: input.position ?? 0,
  };
  refuse(checkMethod(fields, input.charge_amount !== undefined));
  return transaction(ctx, async (trx, afterCommit) => {
    await assertZoneExists(trx, fields.zone_id);
    const now = toTimestamp(ctx.clock.now());
    const id = insertedId(await trx(METHODS).insert({ ...fields, created_at: now, updated_at: now }));
    const method = await findMethod(trx, id);
    await recordActivity(
      trx,
      ctx,
      { object_type: 'shipping', object_id: method.zone_id, title: 'Shipping method created', content: `${method.title} (#${id})` },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/shipping_method/created', method));
    return method;
  });
}

/**
 * A partial update. Changing `charge_type` to `flat_rate` or `per_item` needs a `charge_amount` in the same request;
 * changing it to `free` resets the charge amount to 0 unless one is sent; leaving `free` clears `free_above` unless
 * one is sent (and then it is refused).
 */
export async function updateMethod(ctx: Ctx, id: number, input: Static<typeof MethodPatch>): Promise<ShippingMethod> {
  return transaction(ctx, async (trx, afterCommit) => {
    const previous = await findMethod(trx, id);
    const chargeType = input.charge_type ?? previous.charge_type;
    const typeChanged = chargeType !== previous.charge_type;
    const fields: MethodFields = {
      zone_id: input.zone_id ?? previous.zone_id,
      title: input.title !== undefined ? input.title.trim() : previous.title,
      charge_type: chargeType,
      charge_amount: input.charge_amount ?? (typeChanged && chargeType === 'free' ? 0 : previous.charge_amount),
      free_above: input.free_above !== undefined ? input.free_above : chargeType === 'free' ? previous.free_above : null,
      status: input.status ?? previous.status,
      position: input.position ?? previous.position,
    };
    refuse(checkMethod(fields, input.charge_amount !== undefined || !typeChanged));
    if (fields.zone_id !== previous.zone_id) await assertZoneExists(trx, fields.zone_id);
    const changed = (Object.keys(fields) as Array<keyof MethodFields>).filter((key) => fields[key] !== previous[key]);
    await trx(METHODS)
      .where({ id })
      .update({ ...fields, updated_at: toTimestamp(ctx.clock.now()) });
    const method = await findMethod(trx, id);
    await recordActivity(
      trx,
      ctx,
      {
        object_type: 'shipping',
        object_id: method.zone_id,
        title: 'Shipping method updated',
        content: `${method.title} (#${id}): ${changed.length ? changed.join(', ') : 'no changes'}`,
      },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/shipping_method/updated', method, previous));
    return method;
  });
}

export async function deleteMethod(ctx: Ctx, id: number): Promise<void> {
  await transaction(ctx, async (trx, afterCommit) => {
    const method = await findMethod(trx, id);
    await trx(METHODS).where({ id }).delete();
    await recordActivity(
      trx,
      ctx,
      { object_type: 'shipping', object_id: method.zone_id, title: 'Shipping method deleted', content: `${method.title} (#${id})` },
      afterCommit,
    );
    afterCommit(() => ctx.hooks.doAction('store/shipping_method/deleted', method));
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Checkout and orders

/** The shipping choices for a cart: see `ShippingQuote` in calculator.ts. */
export interface ShippingOptions {
  /** False when no line is physical: nothing ships and no method is needed (`methods` is empty). */
  required: boolean;
  /** The zone the destination falls in, without its methods; null when none covers it. */
  zone: ShippingZone | null;
  /** What the cart may choose, priced (`shipping_charge`, cents), after `store/shipping/available_methods`. */
  methods: PricedShippingMethod[];
}

/**
 * The methods a cart may ship with to `destination`: zones and active methods are loaded (two queries), the
 * calculator matches and prices them, then `store/shipping/available_methods` may remove, reorder, add or reprice
 * methods (a method a listener returns without a valid `shipping_charge` is priced by its charge type). When the
 * cart needs no shipping the filter is not applied.
 */
export async function shippingOptions(ctx: Ctx, destination: ShippingDestination, items: ShippingItem[]): Promise<ShippingOptions> {
  const zones = ((await orderedZones(ctx.db)) as ZoneRow[]).map((row) => presentZone(row));
  const byId = new Map(zones.map((zone) => [zone.id, zone]));
  const methods = ((await ctx.db(METHODS).where({ status: 'active' })) as MethodRow[]).flatMap((row) => {
    const zone = byId.get(Number(row.zone_id));
    return zone ? [presentMethod(row, zone)] : [];
  });
  const quote = availableMethods(zones, methods, destination, items);
  if (!quote.required) return { required: false, zone: null, methods: [] };
  const filtered = ctx.hooks.applyFilters('store/shipping/available_methods', quote.methods, normalizeDestination(destination));
  const totals = physicalTotals(items);
  const priced = (Array.isArray(filtered) ? filtered : quote.methods).map((method): PricedShippingMethod => {
    const charge = (method as Partial<PricedShippingMethod>).shipping_charge;
    return { ...method, shipping_charge: Number.isSafeInteger(charge) && (charge as number) >= 0 ? (charge as number) : chargeFor(method, totals) };
  });
  return { required: true, zone: quote.zone, methods: priced };
}

/**
 * The chosen method priced for a cart and destination (`shipping_charge`, cents), or null when the cart needs no
 * shipping (no physical line), whatever the method. A method that is not among `shippingOptions` (unknown,
 * inactive, another zone, free below its threshold, removed by a filter) is a 422 on `shipping_method`.
 */
export async function priceMethod(ctx: Ctx, methodId: number, destination: ShippingDestination, items: ShippingItem[]): Promise<PricedShippingMethod | null> {
  const options = await shippingOptions(ctx, destination, items);
  if (!options.required) return null;
  const method = options.methods.find((m) => m.id === methodId);
  if (!method) throw invalid('shipping_method', 'invalid', 'The selected shipping method is not available for this address.');
  return method;
}
