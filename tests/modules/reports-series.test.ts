import type { Knex } from 'knex';
import qs from 'qs';
import { seedScale } from '../../src/modules/demo/scale';
import { rebuildReports } from '../../src/modules/reports/sync/rebuild';
import { BASE, startTestApp, type TestApp, type TestUser } from '../support/app';
import { loadCountedOrders, type FoldOrder } from '../support/report-fold';

/**
 * The series and distribution reports against a plain fold: a generated store (`seedScale`, 300 customers, then
 * spread over currencies, test mode, statuses, payment statuses, countries, methods, refunds, taxes, completion
 * times and variations, with orders on the zones' bucket edges), its report data rebuilt, and every figure of
 * every endpoint compared with sums over the raw order rows. The fold reads the request the way a reader of the
 * spec would: each order's local date, weekday and hour come from `Intl`, its bucket from its local date's label,
 * the comparison ranges from plain calendar arithmetic, never from the report code.
 */

const NOW = '2026-11-21 10:00:00';
const TODAY = '2026-11-21';
const ZONES = ['UTC', 'Europe/Berlin', 'Asia/Kolkata'];
const TIME_KEYS = ['default', 'monthly', 'yearly'] as const;
const DIMENSION_KEYS = ['billing_country', 'shipping_country', 'payment_method', 'payment_status'] as const;
const GROUP_KEYS = [...TIME_KEYS, ...DIMENSION_KEYS];
const COMPARE_TYPES = ['previous_period', 'previous_month', 'previous_quarter', 'previous_year', 'custom'] as const;
const COUNTRIES = ['DE', 'US', 'FR', 'IN', 'JP'];
const METHODS = ['stripe', 'paypal', 'cod', ''];
const STATUSES = ['completed', 'completed', 'processing', 'on-hold', 'canceled', 'failed', 'pending'];
const PAYMENT_STATUSES = ['paid', 'paid', 'partially-paid', 'refunded', 'partially-refunded', 'pending', 'failed'];

type GroupKey = (typeof GROUP_KEYS)[number];
type DimensionKey = (typeof DIMENSION_KEYS)[number];
type CompareType = (typeof COMPARE_TYPES)[number];
type Row = Record<string, unknown>;

/** What a request asks, in the request's own terms. */
interface Ask {
  tz: string;
  startDate: string;
  endDate: string;
  groupKey: GroupKey;
  currency: string;
  filterMode: 'live' | 'test';
  orderStatus?: string[];
  orderTypes?: string[];
  paymentStatus?: string[];
  variation_ids?: number[];
  compareType?: CompareType;
  compareDate?: string;
}

const ask = (overrides: Partial<Ask> = {}): Ask => ({
  tz: 'UTC',
  startDate: '2026-09-01',
  endDate: TODAY,
  groupKey: 'default',
  currency: 'USD',
  filterMode: 'live',
  ...overrides,
});

const queryOf = ({ tz, ...params }: Ask) => ({ user_tz: tz, params });

// ---------------------------------------------------------------------------------------------------------------
// The plain fold

/** A small deterministic generator. */
function mulberry(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const formats = new Map<string, Intl.DateTimeFormat>();
const locals = new Map<string, { date: string; weekday: number; hour: number }>();

/** A stored UTC timestamp's local date, weekday (0 = Monday) and hour in `tz`, by `Intl`. */
function local(timestamp: string, tz: string): { date: string; weekday: number; hour: number } {
  const key = `${tz}|${timestamp}`;
  const known = locals.get(key);
  if (known) return known;
  let format = formats.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
    });
    formats.set(tz, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(`${timestamp.replace(' ', 'T')}Z`)).map((part) => [part.type, part.value]));
  const result = { date: `${parts.year}-${parts.month}-${parts.day}`, weekday: WEEKDAYS.indexOf(parts.weekday), hour: Number(parts.hour) };
  locals.set(key, result);
  return result;
}

const STORED_TYPES: Record<string, string> = { 'one-time': 'payment', payment: 'payment', subscription: 'subscription', renewal: 'renewal' };

/** Whether the request counts the order, its local date aside. */
function counts(order: FoldOrder, q: Ask): boolean {
  const statuses = q.orderStatus ?? [];
  const statusCounted = !statuses.length || statuses.includes('all') ? !['on-hold', 'failed'].includes(order.status) : statuses.includes(order.status);
  const types = (q.orderTypes ?? ['one-time', 'subscription', 'renewal']).map((type) => STORED_TYPES[type]);
  const payments = (q.paymentStatus ?? ['paid', 'partially-paid', 'refunded', 'partially-refunded']).map((status) => status.replace('_', '-'));
  return (
    order.mode === q.filterMode &&
    order.currency === q.currency &&
    statusCounted &&
    types.includes(order.type) &&
    payments.includes(order.payment_status) &&
    (!q.variation_ids || order.lines.some((line) => q.variation_ids!.includes(line.variation_id)))
  );
}

/** Plain calendar arithmetic on `YYYY-MM-DD`. */
const DAY_MS = 86_400_000;
const ms = (date: string) => Date.parse(`${date}T00:00:00Z`);
const dateOf = (time: number) => new Date(time).toISOString().slice(0, 10);
const addDays = (date: string, days: number) => dateOf(ms(date) + days * DAY_MS);
const daysIn = (from: string, to: string) => (ms(to) - ms(from)) / DAY_MS + 1;

function shiftMonths(date: string, months: number): string {
  const [year, month, day] = date.split('-').map(Number);
  const index = year * 12 + month - 1 - months;
  const y = Math.floor(index / 12);
  const m = index % 12;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return `${y}-${String(m + 1).padStart(2, '0')}-${String(Math.min(day, last)).padStart(2, '0')}`;
}

/** The comparison range of the spec's compare types. */
function comparison(q: Ask): { startDate: string; endDate: string } | null {
  const days = daysIn(q.startDate, q.endDate);
  switch (q.compareType) {
    case undefined:
      return null;
    case 'previous_period':
      return { startDate: addDays(q.startDate, -days), endDate: addDays(q.startDate, -1) };
    case 'custom':
      return { startDate: q.compareDate!, endDate: addDays(q.compareDate!, days - 1) };
    default: {
      const months = { previous_month: 1, previous_quarter: 3, previous_year: 12 }[q.compareType];
      return { startDate: shiftMonths(q.startDate, months), endDate: shiftMonths(q.endDate, months) };
    }
  }
}

const isDimension = (key: GroupKey): key is DimensionKey => (DIMENSION_KEYS as readonly string[]).includes(key);

/** The interval the spec's grouping rules apply: `default` daily up to 91 days, monthly up to 365, yearly beyond. */
function interval(q: Ask, groupKey: GroupKey): 'daily' | 'monthly' | 'yearly' {
  if (groupKey === 'monthly' || groupKey === 'yearly') return groupKey;
  const days = daysIn(q.startDate, q.endDate);
  return days <= 91 ? 'daily' : days <= 365 ? 'monthly' : 'yearly';
}

const labelOf = (date: string, applied: string) => (applied === 'daily' ? date : applied === 'monthly' ? date.slice(0, 7) : date.slice(0, 4));

let orders: FoldOrder[] = [];

/** The counted orders of a range. */
function selected(q: Ask, range: { startDate: string; endDate: string }): FoldOrder[] {
  return orders.filter((order) => {
    if (!counts(order, q)) return false;
    const day = local(order.created_at, q.tz).date;
    return day >= range.startDate && day <= range.endDate;
  });
}

interface Group {
  year: string | null;
  group: string;
  members: FoldOrder[];
}

const sum = (list: FoldOrder[], figure: (order: FoldOrder) => number) => list.reduce((total, order) => total + figure(order), 0);
const gross = (list: FoldOrder[]) => sum(list, (order) => order.gross);
const net = (list: FoldOrder[]) => sum(list, (order) => order.gross - order.refund - order.tax - order.shipping_tax);

/** Every local day, month or year of the range (zero-filled), or the dimension values present by gross, then name. */
function groupsOf(q: Ask, range: { startDate: string; endDate: string }, groupKey = q.groupKey): { applied: string; groups: Group[] } {
  const members = selected(q, range);
  if (isDimension(groupKey)) {
    const byValue = new Map<string, FoldOrder[]>();
    for (const order of members) byValue.set(order[groupKey] || 'unknown', [...(byValue.get(order[groupKey] || 'unknown') ?? []), order]);
    const groups = [...byValue].map(([group, list]) => ({ year: null, group, members: list }));
    return { applied: groupKey, groups: groups.sort((a, b) => gross(b.members) - gross(a.members) || a.group.localeCompare(b.group)) };
  }
  const applied = interval(q, groupKey);
  const groups = new Map<string, Group>();
  for (let day = range.startDate; day <= range.endDate; day = addDays(day, 1)) {
    const label = labelOf(day, applied);
    if (!groups.has(label)) groups.set(label, { year: label.slice(0, 4), group: label, members: [] });
  }
  for (const order of members) groups.get(labelOf(local(order.created_at, q.tz).date, applied))!.members.push(order);
  return { applied, groups: [...groups.values()] };
}

const halfUp = (total: number, count: number) => (count ? Math.round(total / count) : 0);

function summaryOf(list: FoldOrder[]) {
  return {
    orders: list.length,
    gross_revenue: gross(list),
    net_revenue: net(list),
    refund_amount: sum(list, (order) => order.refund),
    refunded_orders: list.filter((order) => order.refund > 0).length,
    tax_total: sum(list, (order) => order.tax),
    shipping_total: sum(list, (order) => order.shipping_total),
    shipping_tax: sum(list, (order) => order.shipping_tax),
    items_sold: sum(list, (order) => order.items),
    average_order_value: halfUp(gross(list), list.length),
    average_net_value: halfUp(net(list), list.length),
  };
}

function percentChange(current: number, previous: number): number {
  if (previous === 0) return current === 0 ? 0 : 100;
  return Math.round(((current - previous) / Math.abs(previous)) * 10_000) / 100;
}

function changes<T extends Record<string, number>>(current: T, previous: T | null): Record<string, number | null> {
  return Object.fromEntries(Object.keys(current).map((key) => [key, previous ? percentChange(current[key], previous[key]) : null]));
}

const share = (part: number, whole: number) => (whole ? Math.round((part / whole) * 10_000) / 100 : 0);

/** The current and comparison figures of a range-based report. */
function compared<T>(q: Ask, read: (range: { startDate: string; endDate: string }) => T): { current: T; previous: T | null } {
  const previousRange = comparison(q);
  return { current: read(q), previous: previousRange && read(previousRange) };
}

const EXPECTED = {
  revenue(q: Ask) {
    const rows = (groups: Group[]) =>
      groups.map(({ year, group, members }) => ({ year, group, gross_revenue: gross(members), net_revenue: net(members), orders: members.length }));
    const { current, previous } = compared(q, (range) => ({ ...groupsOf(q, range), summary: summaryOf(selected(q, range)) }));
    return {
      revenueReport: rows(current.groups),
      summary: current.summary,
      previousSummary: previous?.summary ?? null,
      fluctuations: changes(current.summary, previous?.summary ?? null),
      previousMetrics: previous && rows(previous.groups),
      appliedGroupKey: current.applied,
    };
  },
  'order-chart'(q: Ask) {
    const { current, previous } = compared(q, (range) => ({ ...groupsOf(q, range), summary: summaryOf(selected(q, range)) }));
    return {
      orderChartData: current.groups.map(({ year, group, members }) => ({ year, group, orders: members.length })),
      summary: current.summary,
      previousSummary: previous?.summary ?? null,
      fluctuations: changes(current.summary, previous?.summary ?? null),
    };
  },
  'sales-report'(q: Ask) {
    const { current, previous } = compared(q, (range) => ({ ...groupsOf(q, range), summary: summaryOf(selected(q, range)) }));
    const graph = (value: (members: FoldOrder[]) => number) => current.groups.map(({ year, group, members }) => ({ year, group, value: value(members) }));
    return {
      graphs: {
        gross_revenue: graph(gross),
        net_revenue: graph(net),
        orders: graph((members) => members.length),
        items_sold: graph((members) => sum(members, (order) => order.items)),
      },
      summaryData: current.summary,
      previousSummary: previous?.summary ?? null,
      fluctuations: changes(current.summary, previous?.summary ?? null),
    };
  },
  'refund-chart'(q: Ask) {
    const refundSummary = (list: FoldOrder[]) => {
      const refunded = list.filter((order) => order.refund > 0);
      const amount = sum(refunded, (order) => order.refund);
      return { total_refunds: refunded.length, total_refund_amount: amount, average_refund: halfUp(amount, refunded.length) };
    };
    const rows = (groups: Group[]) =>
      groups.map(({ year, group, members }) => ({
        year,
        group,
        refund_count: members.filter((order) => order.refund > 0).length,
        refund_amount: sum(members, (order) => order.refund),
      }));
    const { current, previous } = compared(q, (range) => ({ ...groupsOf(q, range), summary: refundSummary(selected(q, range)) }));
    return {
      summary: current.summary,
      previousSummary: previous?.summary ?? null,
      chartData: rows(current.groups),
      fluctuations: changes(current.summary, previous?.summary ?? null),
      previousMetrics: previous && rows(previous.groups),
    };
  },
  'order-value-distribution'(q: Ask) {
    const list = selected(q, q);
    const labels = ['0-10', '10-25', '25-50', '50-100', '100-250', '250-500', '500-1000', '1000+'];
    const bounds = [0, 10, 25, 50, 100, 250, 500, 1000, Infinity];
    const unit = q.currency === 'JPY' ? 1 : 100;
    return {
      data: labels.map((label, band) => {
        const members = list.filter((order) => order.gross >= bounds[band] * unit && order.gross < bounds[band + 1] * unit);
        return { band, label, orders: members.length, gross_revenue: gross(members), percentage: share(members.length, list.length) };
      }),
    };
  },
  'item-count-distribution'(q: Ask) {
    const list = selected(q, q);
    const ranges: Array<[string, number, number]> = [
      ['0', 0, 0],
      ['1', 1, 1],
      ['2', 2, 2],
      ['3', 3, 3],
      ['4', 4, 4],
      ['5', 5, 5],
      ['6-10', 6, 10],
      ['11+', 11, Infinity],
    ];
    return {
      data: ranges.map(([label, low, high], band) => {
        const count = list.filter((order) => order.items >= low && order.items <= high).length;
        return { band, label, orders: count, percentage: share(count, list.length) };
      }),
    };
  },
  'order-completion-time'(q: Ask) {
    const completed = selected(q, q).filter((order) => order.status === 'completed' && order.completion_seconds !== null);
    const hour = 3600;
    const day = 24 * hour;
    const ranges: Array<[string, number, number]> = [
      ['under 1 hour', -Infinity, hour],
      ['1-24 hours', hour, day],
      ['1-3 days', day, 3 * day],
      ['3-7 days', 3 * day, 7 * day],
      ['7-14 days', 7 * day, 14 * day],
      ['14+ days', 14 * day, Infinity],
    ];
    const seconds = sum(completed, (order) => order.completion_seconds!);
    return {
      data: {
        bands: ranges.map(([label, low, high], index) => {
          const count = completed.filter((order) => order.completion_seconds! >= low && order.completion_seconds! < high).length;
          return { band: index + 1, label, orders: count, percentage: share(count, completed.length) };
        }),
        completed_orders: completed.length,
        average_seconds: halfUp(seconds, completed.length),
      },
    };
  },
  'fetch-new-vs-returning-customer'(q: Ask) {
    const totals = (members: FoldOrder[]) => {
      const first = members.filter((order) => order.first_order === 1);
      const returning = members.filter((order) => order.first_order === 0);
      return { new_customers: first.length, returning_orders: returning.length, new_revenue: gross(first), returning_revenue: gross(returning) };
    };
    const { groups } = groupsOf(q, q, isDimension(q.groupKey) ? 'default' : q.groupKey);
    return {
      newVsReturning: {
        series: groups.map(({ year, group, members }) => ({ year, group, ...totals(members) })),
        summary: totals(selected(q, q)),
      },
    };
  },
  'fetch-report-by-day-and-hour'(q: Ask) {
    const names = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
    const cells = names.flatMap((day_name, day) => Array.from({ length: 24 }, (_, hour) => ({ day, day_name, hour, orders: 0, gross_revenue: 0 })));
    for (const order of selected(q, q)) {
      const { weekday, hour } = local(order.created_at, q.tz);
      const cell = cells[weekday * 24 + hour];
      cell.orders += 1;
      cell.gross_revenue += order.gross;
    }
    return { data: cells, max_orders: Math.max(...cells.map((cell) => cell.orders)) };
  },
};

type Path = keyof typeof EXPECTED;
const PATHS = Object.keys(EXPECTED) as Path[];
const SERIES_PATHS: Path[] = ['revenue', 'order-chart', 'sales-report', 'refund-chart'];

// ---------------------------------------------------------------------------------------------------------------
// The generated store

const shift = (timestamp: string, seconds: number) =>
  new Date(Date.parse(`${timestamp.replace(' ', 'T')}Z`) + seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');

/**
 * Spreads the generated orders over everything the reports tell apart, in the order tables themselves (the rebuild
 * reads them). Some orders are moved onto the edges the zones' buckets turn on: Kolkata's midnight (18:30 UTC), the
 * Berlin DST changes (01:00 UTC), UTC midnight, a second before each.
 */
async function vary(db: Knex): Promise<void> {
  const rng = mulberry(4);
  const pick = <T>(values: readonly T[]) => values[Math.floor(rng() * values.length)];
  const edges = [
    '2026-11-01 18:30:00',
    '2026-11-01 18:29:59',
    '2026-10-25 01:00:00',
    '2026-10-25 00:59:59',
    '2026-10-25 00:30:00',
    '2026-03-29 01:00:00',
    '2026-03-29 00:59:59',
    '2026-10-31 23:00:00',
    '2026-10-31 23:59:59',
    '2026-11-01 00:00:00',
    '2026-08-31 22:00:00',
    '2026-09-01 00:00:00',
    '2025-12-31 23:30:00',
  ];
  const rows = (await db('store_orders').select('id', 'created_at').orderBy('id')) as Array<{ id: number; created_at: string }>;
  await db.transaction(async (trx) => {
    for (const [index, order] of rows.entries()) {
      const currency = rng() < 0.15 ? pick(['EUR', 'JPY']) : 'USD';
      const status = pick(STATUSES);
      const createdAt = index % 29 === 0 ? edges[(index / 29) % edges.length] : order.created_at;
      const paid = currency === 'JPY' ? Math.floor(rng() * 200_000) : Math.floor(rng() * 150_000);
      const completion = pick([600, 5_000, 90_000, 300_000, 700_000, 1_300_000, 3_000_000]) + Math.floor(rng() * 500);
      const update: Row = {
        currency,
        mode: rng() < 0.1 ? 'test' : 'live',
        status,
        payment_status: pick(PAYMENT_STATUSES),
        payment_method: pick(METHODS),
        created_at: createdAt,
        completed_at: status === 'completed' ? shift(createdAt, completion) : null,
        total_paid: paid,
        total_refund: rng() < 0.3 ? Math.floor(paid * rng()) : 0,
        tax_total: Math.floor(paid * 0.08),
        shipping_total: pick([0, 500, 990]),
        shipping_tax: pick([0, 95, 188]),
      };
      if (index % 47 === 0) update.customer_id = null;
      await trx('store_orders').where('id', order.id).update(update);
      await trx('store_order_addresses').where('order_id', order.id).delete();
      const addresses = [];
      if (rng() < 0.85) addresses.push({ type: 'billing', country: pick(COUNTRIES) });
      if (rng() < 0.6) addresses.push({ type: 'shipping', country: pick(COUNTRIES) });
      for (const address of addresses)
        await trx('store_order_addresses').insert({ order_id: order.id, ...address, created_at: createdAt, updated_at: createdAt });
    }
    const items = (await trx('store_order_items').select('id').orderBy('id')) as Array<{ id: number }>;
    for (const item of items) {
      await trx('store_order_items')
        .where('id', item.id)
        .update({ post_id: 1 + (item.id % 4), variation_id: 20 + (item.id % 9), line_total: Math.floor(rng() * 9_000), quantity: 1 + Math.floor(rng() * 4) });
    }
  });
}

// ---------------------------------------------------------------------------------------------------------------

describe('series reports: every figure against a fold over the raw orders', () => {
  let app: TestApp;
  let admin: TestUser;

  const get = async (path: string, query: Row) => {
    const res = await app.as(admin).get(`${BASE}/reports/${path}?${qs.stringify(query)}`);
    expect({ path, query, status: res.status }).toEqual({ path, query, status: 200 });
    return res.body as Row;
  };

  /** Asks the endpoint and compares the whole body with the fold; returns the body. */
  async function check(path: Path, q: Ask): Promise<Row> {
    const body = await get(path, queryOf(q));
    expect({ path, q, body }).toEqual({ path, q, body: EXPECTED[path](q) });
    return body;
  }

  beforeAll(async () => {
    app = await startTestApp();
    app.clock.set(`${NOW.replace(' ', 'T')}Z`);
    admin = await app.createUser('series-admin', ['administrator']);
    await seedScale(app.ctx(), { customers: 300, seed: 7, orders: true });
    await vary(app.database.db);
    await rebuildReports(app.ctx());
    orders = await loadCountedOrders(app.database.db);
  }, 600_000);
  afterAll(() => app.close());

  it('the generated store has what the comparisons need', () => {
    expect(orders.length).toBeGreaterThan(2000);
    expect(new Set(orders.map((order) => order.currency))).toEqual(new Set(['USD', 'EUR', 'JPY']));
    expect(new Set(orders.map((order) => order.mode))).toEqual(new Set(['live', 'test']));
    expect(new Set(orders.map((order) => order.type))).toEqual(new Set(['payment', 'subscription', 'renewal']));
    expect(new Set(orders.map((order) => order.first_order))).toEqual(new Set([0, 1]));
    for (const figure of ['refund', 'tax', 'shipping_total', 'shipping_tax'] as const) expect(orders.some((order) => order[figure] > 0)).toBe(true);
    expect(orders.filter((order) => order.completion_seconds !== null).length).toBeGreaterThan(500);
    expect(orders.filter((order) => order.billing_country === '').length).toBeGreaterThan(50);
  });

  describe('GET /reports/revenue', () => {
    it.each(ZONES.flatMap((tz) => GROUP_KEYS.map((groupKey) => [groupKey, tz] as const)))('groupKey %s in %s', async (groupKey, tz) => {
      const body = await check('revenue', ask({ tz, groupKey }));
      expect((body.revenueReport as Row[]).some((row) => Number(row.orders) > 0)).toBe(true);
      expect(body.previousMetrics).toBeNull();
    });

    it.each([
      ['2026-08-23', 91, 'daily'],
      ['2026-08-22', 92, 'monthly'],
      ['2025-11-22', 365, 'monthly'],
      ['2025-11-21', 366, 'yearly'],
      ['2023-06-01', 1270, 'yearly'],
    ] as const)('default grouping from %s (%i days) is %s', async (startDate, days, applied) => {
      expect(daysIn(startDate, TODAY)).toBe(days);
      for (const tz of ['Europe/Berlin', 'Asia/Kolkata']) {
        const body = await check('revenue', ask({ tz, startDate }));
        expect(body.appliedGroupKey).toBe(applied);
      }
    });

    it.each(COMPARE_TYPES)('compareType %s: previousSummary, previousMetrics (its own buckets) and fluctuations', async (compareType) => {
      for (const tz of ZONES) {
        const q = ask({ tz, startDate: '2026-08-30', endDate: '2026-10-31', compareType, compareDate: '2025-03-01' });
        const body = await check('revenue', q);
        const previous = comparison(q)!;
        expect((body.previousMetrics as Row[]).map((row) => row.group)).toEqual(groupsOf(q, previous).groups.map((group) => group.group));
        expect(body.fluctuations).toEqual(expect.objectContaining({ gross_revenue: expect.any(Number) }));
        expect((body.previousSummary as Row).orders).toBeGreaterThan(0);
      }
    });

    it('comparisons keep month ends (previous_month of Mar 31 is Feb 28), groupings and dimension keys', async () => {
      await check('revenue', ask({ startDate: '2026-03-31', endDate: '2026-05-31', compareType: 'previous_month' }));
      await check('revenue', ask({ startDate: '2025-01-01', endDate: '2025-12-31', groupKey: 'monthly', compareType: 'previous_year' }));
      await check('revenue', ask({ tz: 'Asia/Kolkata', groupKey: 'billing_country', compareType: 'previous_quarter' }));
      await check('revenue', ask({ tz: 'Europe/Berlin', groupKey: 'payment_status', compareType: 'previous_period' }));
    });
  });

  describe.each(['order-chart', 'sales-report', 'refund-chart'] as const)('GET /reports/%s', (path) => {
    it.each(ZONES)('every groupKey in %s', async (tz) => {
      for (const groupKey of GROUP_KEYS) await check(path, ask({ tz, groupKey, startDate: '2026-05-10' }));
    });

    it.each(COMPARE_TYPES)('compareType %s', async (compareType) => {
      await check(path, ask({ tz: 'Europe/Berlin', startDate: '2025-10-01', endDate: '2026-03-31', compareType, compareDate: '2024-01-15' }));
      await check(path, ask({ tz: 'Asia/Kolkata', groupKey: 'shipping_country', compareType, compareDate: '2024-01-15' }));
    });
  });

  describe('GET /reports/refund-chart', () => {
    it('counts the orders with a refund by their creation date, and averages them in whole cents', async () => {
      const body = await check('refund-chart', ask({ startDate: '2023-06-01', groupKey: 'yearly' }));
      const summary = body.summary as Row;
      expect(summary.total_refunds).toBeGreaterThan(100);
      expect(Number.isInteger(summary.average_refund)).toBe(true);
    });
  });

  describe.each(['order-value-distribution', 'item-count-distribution', 'order-completion-time'] as const)('GET /reports/%s', (path) => {
    it.each(ZONES)('every band, zero-filled, with shares of orders (in %s)', async (tz) => {
      await check(path, ask({ tz }));
      await check(path, ask({ tz, startDate: '2023-06-01' }));
      await check(path, ask({ tz, startDate: '2026-10-25', endDate: '2026-11-01', currency: 'JPY' }));
    });
  });

  describe('GET /reports/order-completion-time', () => {
    it('leaves out orders that are not completed and averages the others in whole seconds', async () => {
      const body = await check('order-completion-time', ask({ startDate: '2023-06-01' }));
      const data = body.data as { bands: Row[]; completed_orders: number; average_seconds: number };
      expect(data.bands.map((band) => band.band)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(data.completed_orders).toBeGreaterThan(100);
      expect(data.bands.every((band) => Number(band.orders) > 0)).toBe(true);
    });
  });

  describe('GET /reports/fetch-new-vs-returning-customer', () => {
    it.each(ZONES)('first orders and returning orders per bucket, and their totals (in %s)', async (tz) => {
      for (const groupKey of ['default', 'monthly', 'yearly', 'billing_country'] as const) {
        const body = await check('fetch-new-vs-returning-customer', ask({ tz, groupKey, startDate: '2025-12-01' }));
        const { summary } = body.newVsReturning as { summary: Row };
        expect(summary.new_customers).toBeGreaterThan(0);
        expect(summary.returning_orders).toBeGreaterThan(0);
      }
    });
  });

  describe('GET /reports/fetch-report-by-day-and-hour', () => {
    it.each(ZONES)('all 168 local weekday-hour cells (in %s), across DST changes and over all time', async (tz) => {
      await check('fetch-report-by-day-and-hour', ask({ tz }));
      await check('fetch-report-by-day-and-hour', ask({ tz, startDate: '2026-03-01', endDate: '2026-04-30' }));
      const body = await check('fetch-report-by-day-and-hour', ask({ tz, startDate: '2023-01-01' }));
      expect(body.max_orders).toBeGreaterThan(10);
    });

    it('half-hour and quarter-hour zones and zones west of UTC', async () => {
      for (const tz of ['Asia/Kathmandu', 'America/New_York', 'Australia/Adelaide']) {
        await check('fetch-report-by-day-and-hour', ask({ tz, startDate: '2025-01-01' }));
      }
    });
  });

  describe('filters apply to every endpoint', () => {
    const variation = 23;
    const CASES: Array<[string, Partial<Ask>]> = [
      ['orderStatus all', { orderStatus: ['all'] }],
      ['orderStatus completed and on-hold', { orderStatus: ['completed', 'on-hold'] }],
      ['orderTypes one-time', { orderTypes: ['one-time'] }],
      ['orderTypes renewal and subscription', { orderTypes: ['renewal', 'subscription'] }],
      ['paymentStatus refunded and partially_refunded', { paymentStatus: ['refunded', 'partially_refunded'] }],
      ['filterMode test', { filterMode: 'test' }],
      ['variation_ids', { variation_ids: [variation, variation + 3] }],
      ['another currency', { currency: 'EUR' }],
      ['a currency without orders', { currency: 'GBP' }],
    ];

    it.each(CASES)('%s', async (_, overrides) => {
      for (const path of PATHS) {
        await check(path, ask({ tz: 'Europe/Berlin', startDate: '2026-02-01', ...overrides }));
      }
      for (const path of SERIES_PATHS) await check(path, ask({ tz: 'Asia/Kolkata', groupKey: 'payment_method', compareType: 'previous_year', ...overrides }));
      await check('fetch-report-by-day-and-hour', ask({ tz: 'Asia/Kolkata', startDate: '2023-01-01', ...overrides }));
      const matching = selected(ask({ startDate: '2023-01-01', ...overrides }), { startDate: '2023-01-01', endDate: TODAY }).length;
      if (overrides.currency === 'GBP') expect(matching).toBe(0);
      else expect(matching).toBeGreaterThan(20);
    });

    it('a single orderTypes value is a list of one; filterMode defaults to the store payment mode (test)', async () => {
      const single = await get('revenue', { params: { startDate: '2026-01-01', orderTypes: 'renewal', filterMode: 'live' } });
      expect(single).toEqual(EXPECTED.revenue(ask({ startDate: '2026-01-01', orderTypes: ['renewal'] })));
      const byDefault = await get('revenue', { params: { startDate: '2026-01-01' } });
      expect(byDefault).toEqual(EXPECTED.revenue(ask({ startDate: '2026-01-01', filterMode: 'test' })));
    });
  });
});
