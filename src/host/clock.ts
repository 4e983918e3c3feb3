import type { Clock } from './contract';

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and move forward. */
export class MovableClock implements Clock {
  private current: number;

  constructor(start: Date | string = new Date()) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(to: Date | string): void {
    this.current = new Date(to).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

/** UTC `YYYY-MM-DD HH:MM:SS`, the one timestamp format stored and returned. */
export function sqlTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}
