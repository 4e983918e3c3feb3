import { comparisonRange, fluctuations } from '../../src/modules/reports/compare';
import { salesSummary } from '../../src/modules/reports/summary';

describe('salesSummary', () => {
  it('names the sums, derives net revenue and the averages in whole cents', () => {
    expect(salesSummary({ orders: 3, refunded_orders: 1, gross: 10_000, refund: 1_000, tax: 900, shipping_tax: 100, shipping_total: 1_500, items: 7 })).toEqual(
      {
        orders: 3,
        gross_revenue: 10_000,
        net_revenue: 8_000,
        refund_amount: 1_000,
        refunded_orders: 1,
        tax_total: 900,
        shipping_total: 1_500,
        shipping_tax: 100,
        items_sold: 7,
        average_order_value: 3_333,
        average_net_value: 2_667,
      },
    );
  });

  it('averages round half up; no orders give zeros', () => {
    expect(salesSummary({ orders: 2, gross: 1_001 }).average_order_value).toBe(501);
    expect(salesSummary({ orders: 2, gross: 1_001, refund: 1_004 }).average_net_value).toBe(-1);
    expect(salesSummary({})).toEqual({
      orders: 0,
      gross_revenue: 0,
      net_revenue: 0,
      refund_amount: 0,
      refunded_orders: 0,
      tax_total: 0,
      shipping_total: 0,
      shipping_tax: 0,
      items_sold: 0,
      average_order_value: 0,
      average_net_value: 0,
    });
  });
});

describe('fluctuations', () => {
  it('percent change per key, two decimals; from 0 it is 0 or 100', () => {
    expect(fluctuations({ a: 150, b: 0, c: 5, d: 1, e: 2 }, { a: 100, b: 0, c: 0, d: 3, e: -4 })).toEqual({ a: 50, b: 0, c: 100, d: -66.67, e: 150 });
  });

  it('every key null without a comparison', () => {
    expect(fluctuations({ orders: 4, gross_revenue: 100 }, null)).toEqual({ orders: null, gross_revenue: null });
  });
});

describe('comparisonRange', () => {
  it('previous_period: the same number of days right before', () => {
    expect(comparisonRange('previous_period', { startDate: '2026-03-01', endDate: '2026-03-10' })).toEqual({ startDate: '2026-02-19', endDate: '2026-02-28' });
  });

  it('previous_month/quarter/year shift both ends back, clamped to the month end', () => {
    const range = { startDate: '2026-05-31', endDate: '2026-08-31' };
    expect(comparisonRange('previous_month', range)).toEqual({ startDate: '2026-04-30', endDate: '2026-07-31' });
    expect(comparisonRange('previous_quarter', range)).toEqual({ startDate: '2026-02-28', endDate: '2026-05-31' });
    expect(comparisonRange('previous_year', { startDate: '2028-02-29', endDate: '2028-03-01' })).toEqual({ startDate: '2027-02-28', endDate: '2027-03-01' });
    expect(comparisonRange('previous_month', { startDate: '2026-01-15', endDate: '2026-01-20' })).toEqual({ startDate: '2025-12-15', endDate: '2025-12-20' });
  });

  it('custom: as many days from compareDate', () => {
    expect(comparisonRange('custom', { startDate: '2026-03-01', endDate: '2026-03-10' }, '2025-12-28')).toEqual({
      startDate: '2025-12-28',
      endDate: '2026-01-06',
    });
  });
});
