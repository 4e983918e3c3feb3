import type { Ctx } from '../../../core/context';
import { parseReportParams } from '../params';
import { hourCells } from './hour-cells';

const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const HOURS = 24;

export interface DayHourCell {
  /** 0 = Monday … 6 = Sunday, in the report zone. */
  day: number;
  day_name: string;
  /** 0-23, local. */
  hour: number;
  orders: number;
  gross_revenue: number;
}

/**
 * `GET /reports/fetch-report-by-day-and-hour`: orders and gross revenue per local weekday and hour over the range
 * (all 168 cells, Monday 00 first), each order placed by its own local time (DST-correct), and the busiest cell's
 * order count.
 */
export async function reportByDayAndHour(ctx: Ctx, query: Record<string, unknown>): Promise<{ data: DayHourCell[]; max_orders: number }> {
  const params = await parseReportParams(ctx, query);
  const cells = await hourCells(ctx.db, params.filters, params.range, params.tz);
  const data = cells.map(({ orders, gross }, cell) => {
    const day = Math.floor(cell / HOURS);
    return { day, day_name: DAY_NAMES[day], hour: cell % HOURS, orders, gross_revenue: gross };
  });
  return { data, max_orders: Math.max(0, ...data.map((cell) => cell.orders)) };
}
