import type { Clock } from '../../src/ports/clock.js';

/** A clock that moves only when a test says so. */
export class FakeClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2026-03-01T12:00:00.000Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(seconds: number): void {
    this.current += seconds * 1000;
  }
  set(to: Date | string): void {
    this.current = new Date(to).getTime();
  }
}
