import type { Clock } from '../../src/domain/clock.js';

/** A clock that moves only when a test tells it to. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.UTC(2026, 0, 15, 12, 0, 0)) {}

  now(): number {
    return this.current;
  }

  set(ms: number): void {
    this.current = ms;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
