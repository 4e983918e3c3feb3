import fc from 'fast-check';
import type { Knex } from 'knex';
import { seedScale } from '../../src/modules/demo/scale';
import { timeBuckets } from '../../src/modules/reports/buckets';
import { aggregate } from '../../src/modules/reports/engine/aggregate';
import { decompose, type Piece } from '../../src/modules/reports/engine/decompose';
import { slotStart } from '../../src/modules/reports/engine/slots';
import { rebuildReports } from '../../src/modules/reports/sync/rebuild';
import { EXCLUDED_BY_ALL, FAMILIES, type DimensionOf, type FamilyName, type Grain, type ReportFilters } from '../../src/modules/reports/types';
import { startTestApp, type TestApp } from '../support/app';
import { foldAggregate, loadCountedOrders, sortRows, type FoldOrder } from '../support/report-fold';

/**
 * The engine against a plain fold: a generated store (varied below: currencies, test mode, statuses, addresses,
 * taxes, shipping, refunds, completion times, orders on bucket boundaries), its facts and summaries rebuilt, then
 * `aggregate` for every family in several zones, ranges, groupings and filters must equal the sums of the raw
 * orders put in buckets by their `created_at`.
 */

const ALL_TYPES = ['payment', 'subscription', 'renewal'];
const ALL_PAYMENTS = ['paid', 'partially-paid', 'refunded', 'partially-refunded'];
const ZONES = ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'Asia/Kathmandu', 'America/Los_Angeles'];
const COUNTRIES = ['DE', 'US', 'FR', 'IN', 'NP', 'JP'];
const METHODS = ['stripe', 'paypal', 'cod', ''];
const STATUSES = ['completed', 'completed', 'processing', 'on-hold', 'canceled', 'failed', 'pending'];

const filters = (overrides: Partial<ReportFilters> = {}): ReportFilters => ({
  mode: 'live',
  currency: 'USD',
  excludeStatuses: [...EXCLUDED_BY_ALL],
  types: ALL_TYPES,
  paymentStatuses: ALL_PAYMENTS,
  variationIds: [],
  ...overrides,
});

/** A small deterministic generator (the store's own rng is for the seeder). */
function mulberry(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const shift = (timestamp: string, seconds: number) =>
  new Date(Date.parse(`${timestamp.replace(' ', 'T')}Z`) + seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');

/** Spreads the generated orders over what the reports tell apart, straight in the tables (the rebuild reads them). */
async function vary(db: Knex): Promise<void> {
  const rng = mulberry(15);
  const pick = <T>(values: readonly T[]) => values[Math.floor(rng() * values.length)];
  // Boundaries the zones' buckets turn on: local midnights of Kolkata/Kathmandu/Berlin/LA, UTC midnight, a second before.
  const edges = [
    '2026-11-01 18:30:00',
    '2026-11-01 18:29:59',
    '2026-11-01 18:15:00',
    '2026-10-31 23:00:00',
    '2026-10-25 23:00:00',
    '2026-03-29 22:00:00',
    '2026-11-02 08:00:00',
    '2026-11-02 00:00:00',
    '2026-10-31 23:59:59',
    '2026-01-01 00:00:00',
  ];
  const orders = (await db('store_orders').select('id', 'created_at', 'customer_id').orderBy('id')) as Array<{
    id: number;
    created_at: string;
    customer_id: number | null;
  }>;
  await db.transaction(async (trx) => {
    for (const [index, order] of orders.entries()) {
      const currency = rng() < 0.15 ? pick(['EUR', 'JPY']) : 'USD';
      const status = pick(STATUSES);
      const createdAt = index % 37 === 0 ? edges[(index / 37) % edges.length] : order.created_at;
      const paid = currency === 'JPY' ? Math.floor(rng() * 40_000) : Math.floor(rng() * 120_000);
      await trx('store_orders')
        .where('id', order.id)
        .update({
          currency,
          mode: rng() < 0.1 ? 'test' : 'live',
          status,
          payment_status: pick(['paid', 'paid', 'partially-paid', 'refunded', 'partially-refunded', 'pending', 'failed']),
          payment_method: pick(METHODS),
          customer_id: index % 53 === 0 ? null : order.customer_id,
          created_at: createdAt,
          completed_at: status === 'completed' ? shift(createdAt, Math.floor(rng() * 20 * 86_400)) : null,
          total_paid: paid,
          total_refund: rng() < 0.3 ? Math.floor(paid * rng()) : 0,
          tax_total: Math.floor(paid * 0.1),
          shipping_total: pick([0, 500, 990]),
          shipping_tax: pick([0, 95, 188]),
        });
      const addresses = [];
      if (rng() < 0.8) addresses.push({ type: 'billing', country: pick(COUNTRIES) });
      if (rng() < 0.6) addresses.push({ type: 'shipping', country: pick(COUNTRIES) });
      await trx('store_order_addresses').where('order_id', order.id).delete();
      for (const address of addresses)
        await trx('store_order_addresses').insert({ order_id: order.id, ...address, created_at: createdAt, updated_at: createdAt });
    }
    // Products and variations (the generated lines have none without a catalog); some orders hold one twice.
    const items = (await trx('store_order_items').select('id').orderBy('id')) as Array<{ id: number }>;
    for (const item of items) {
      await trx('store_order_items')
        .where('id', item.id)
        .update({ post_id: 1 + (item.id % 4), variation_id: 10 + (item.id % 7), line_total: Math.floor(rng() * 9_000), quantity: 1 + Math.floor(rng() * 3) });
    }
  });
}

describe('reports engine: aggregate equals a fold over the raw orders', () => {
  let app: TestApp;
  let orders: FoldOrder[];
  let variations: number[];

  beforeAll(async () => {
    app = await startTestApp();
    await seedScale(app.ctx(), { customers: 60, seed: 7, orders: true });
    await vary(app.database.db);
    await rebuildReports(app.ctx());
    orders = await loadCountedOrders(app.database.db);
    const counted = orders.flatMap((order) => order.lines.map((line) => line.variation_id)).filter(Boolean);
    variations = [...new Set(counted)].slice(0, 3);
  }, 120_000);
  afterAll(() => app.close());

  const RANGES = [
    { startDate: '2026-10-12', endDate: '2026-11-21', groupKey: 'default' as const },
    { startDate: '2026-03-20', endDate: '2026-04-05', groupKey: 'default' as const },
    { startDate: '2025-02-14', endDate: '2026-01-09', groupKey: 'default' as const },
    { startDate: '2023-11-01', endDate: '2026-11-21', groupKey: 'default' as const },
    { startDate: '2025-12-17', endDate: '2026-11-03', groupKey: 'monthly' as const },
  ];

  async function expectAgreement<F extends FamilyName>(
    family: F,
    zone: string,
    range: (typeof RANGES)[number],
    reportFilters: ReportFilters,
    groupBy: DimensionOf<F>[] = [],
  ) {
    const buckets = timeBuckets(range, zone, range.groupKey).buckets;
    const query = { family, filters: reportFilters, buckets, groupBy };
    const expected = foldAggregate(orders, query);
    const actual = sortRows(await aggregate(app.ctx(), query));
    expect({ family, zone, range, actual }).toEqual({ family, zone, range, actual: expected });
    return expected;
  }

  it('the generated store counts orders in every family, currency and mode (the comparisons below are not empty)', async () => {
    expect(orders.length).toBeGreaterThan(500);
    expect(new Set(orders.map((order) => order.currency))).toEqual(new Set(['USD', 'EUR', 'JPY']));
    expect(new Set(orders.map((order) => order.mode))).toEqual(new Set(['live', 'test']));
    expect(new Set(orders.map((order) => order.type))).toEqual(new Set(ALL_TYPES));
    expect(variations).toHaveLength(3);
    const allTime = await expectAgreement('sales', 'UTC', RANGES[3], filters());
    expect(allTime.reduce((sum, row) => sum + row.metrics.orders, 0)).toBeGreaterThan(300);
  });

  describe.each(ZONES)('in %s', (zone) => {
    it.each(RANGES.map((range) => [`${range.startDate}..${range.endDate} ${range.groupKey}`, range] as const))('every family, %s', async (_, range) => {
      for (const family of Object.keys(FAMILIES) as FamilyName[]) {
        const rows = await expectAgreement(family, zone, range, filters());
        expect(rows.length).toBeGreaterThan(0);
      }
    });
  });

  it('groupBy dimensions of each family', async () => {
    const range = RANGES[2];
    for (const zone of ['UTC', 'Asia/Kolkata']) {
      await expectAgreement('sales', zone, range, filters(), ['first_order']);
      await expectAgreement('sales', zone, range, filters(), ['payment_status', 'type']);
      await expectAgreement('groups', zone, range, filters(), ['billing_country']);
      await expectAgreement('groups', zone, range, filters(), ['payment_method', 'shipping_country']);
      await expectAgreement('items', zone, range, filters(), ['product_id', 'variation_id']);
      await expectAgreement('items', zone, range, filters(), ['product_id']);
      await expectAgreement('bands', zone, range, filters(), ['value_band']);
      await expectAgreement('bands', zone, range, filters(), ['item_band', 'completion_band', 'status']);
    }
  });

  it('filters: statuses, order types, payment statuses, test mode, other currencies, variations', async () => {
    const cases: Array<Partial<ReportFilters>> = [
      { excludeStatuses: [] },
      { excludeStatuses: ['draft', 'pending', 'on-hold', 'processing', 'canceled', 'failed'] },
      { types: ['renewal'] },
      { types: ['payment', 'subscription'] },
      { paymentStatuses: ['refunded', 'partially-refunded'] },
      { mode: 'test' },
      { currency: 'EUR' },
      { currency: 'JPY', mode: 'live' },
      { currency: 'GBP' },
    ];
    for (const zone of ['UTC', 'Europe/Berlin', 'Asia/Kathmandu']) {
      for (const overrides of cases) {
        for (const family of Object.keys(FAMILIES) as FamilyName[]) await expectAgreement(family, zone, RANGES[3], filters(overrides));
        await expectAgreement('sales', zone, RANGES[0], filters(overrides), ['first_order']);
      }
    }
    for (const family of Object.keys(FAMILIES) as FamilyName[]) {
      for (const range of [RANGES[0], RANGES[3]]) {
        const rows = await expectAgreement(family, 'Asia/Kolkata', range, filters({ variationIds: variations }));
        if (range === RANGES[3]) expect(rows.length).toBeGreaterThan(0);
      }
    }
    await expectAgreement('items', 'UTC', RANGES[3], filters({ variationIds: [variations[0]] }), ['variation_id']);
  });

  it('no buckets, or buckets with no orders, give no rows', async () => {
    expect(await aggregate(app.ctx(), { family: 'sales', filters: filters(), buckets: [] })).toEqual([]);
    const future = timeBuckets({ startDate: '2030-01-01', endDate: '2030-03-01' }, 'Asia/Kolkata', 'default').buckets;
    for (const family of Object.keys(FAMILIES) as FamilyName[]) {
      expect(await aggregate(app.ctx(), { family, filters: filters(), buckets: future })).toEqual([]);
    }
  });
});

describe('decompose: the signed pieces of a bucket add up to it exactly', () => {
  const FAMILY_GRAINS: Grain[][] = [['m', 'd', 'h'], ['m', 'd'], []];
  const start = Date.UTC(2019, 0, 1) / 1000;
  const end = Date.UTC(2031, 0, 1) / 1000;

  const bounds = (piece: Piece): [number, number] =>
    piece.kind === 'live' ? [piece.from, piece.to] : [slotStart(piece.grain, piece.first), slotStart(piece.grain, piece.last + 1)];

  /** The signed count of pieces covering the instant: 1 inside the bucket, 0 outside. */
  const coverage = (pieces: Piece[], at: number) =>
    pieces.reduce((sum, piece) => {
      const [from, to] = bounds(piece);
      return sum + (from <= at && at < to ? piece.sign : 0);
    }, 0);

  it('at every boundary of every piece the signed coverage is 1 inside and 0 outside (so everywhere), and no piece is empty', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: start, max: end }),
        fc.oneof(fc.integer({ min: 0, max: 3 * 86_400 }), fc.integer({ min: 0, max: 800 * 86_400 })),
        fc.constantFrom(...FAMILY_GRAINS),
        fc.constantFrom(0, 900, 1_800, 2_700, 3_600, 19_800, 20_700),
        (from, length, grains, snap) => {
          // Snapping to quarter hours makes zone-like boundaries (+5:30, +5:45) frequent.
          const a = from - (from % 900) + (snap % 900);
          const b = a + length;
          const pieces = decompose(a, b, grains);
          const instants = new Set([a, b, ...pieces.flatMap(bounds)]);
          for (const at of instants) {
            expect(coverage(pieces, at)).toBe(a <= at && at < b ? 1 : 0);
            expect(coverage(pieces, at - 1)).toBe(a <= at - 1 && at - 1 < b ? 1 : 0);
          }
          for (const piece of pieces) {
            const [pieceFrom, pieceTo] = bounds(piece);
            expect(pieceTo).toBeGreaterThan(pieceFrom);
            if (piece.kind === 'live' && grains.length) expect(pieceTo - pieceFrom).toBeLessThan(3_600 * (grains.includes('h') ? 1 : 24));
          }
          if (length > 0) expect(pieces.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a Kolkata day: its UTC day plus 5½ hours before, minus 5½ hours at the end, the half hours read live', () => {
    const from = Date.UTC(2026, 10, 23, 18, 30) / 1000;
    const day = Date.UTC(2026, 10, 24) / 1000;
    expect(decompose(from, from + 86_400, ['m', 'd', 'h'])).toEqual([
      { kind: 'live', from, to: from + 1_800, sign: 1 },
      { kind: 'slots', grain: 'h', first: (from + 1_800) / 3_600, last: day / 3_600 - 1, sign: 1 },
      { kind: 'slots', grain: 'd', first: day / 86_400, last: day / 86_400, sign: 1 },
      { kind: 'live', from: from + 86_400, to: from + 86_400 + 1_800, sign: -1 },
      { kind: 'slots', grain: 'h', first: (from + 86_400 + 1_800) / 3_600, last: (day + 86_400) / 3_600 - 1, sign: -1 },
    ]);
  });

  it('a Berlin month is its UTC month plus an hour before and minus the last two hours; a UTC month is one slot', () => {
    const march = Date.UTC(2026, 2, 1) / 1000;
    const april = Date.UTC(2026, 3, 1) / 1000;
    expect(decompose(march - 3_600, april - 7_200, ['m', 'd', 'h'])).toEqual([
      { kind: 'slots', grain: 'h', first: march / 3_600 - 1, last: march / 3_600 - 1, sign: 1 },
      { kind: 'slots', grain: 'm', first: 2026 * 12 + 2, last: 2026 * 12 + 2, sign: 1 },
      { kind: 'slots', grain: 'h', first: april / 3_600 - 2, last: april / 3_600 - 1, sign: -1 },
    ]);
    expect(decompose(march, april, ['m', 'd'])).toEqual([{ kind: 'slots', grain: 'm', first: 2026 * 12 + 2, last: 2026 * 12 + 2, sign: 1 }]);
  });

  it('without grains (variation filters) the bucket is read live whole', () => {
    expect(decompose(100, 200, [])).toEqual([{ kind: 'live', from: 100, to: 200, sign: 1 }]);
  });
});
