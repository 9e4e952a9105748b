import { describe, expect, it } from '@jest/globals';
import { systemClock } from '../../src/domain/clock.js';
import { ManualClock } from '../support/manual-clock.js';

describe('clock', () => {
  it('system clock follows Date.now', () => {
    const before = Date.now();
    const t = systemClock.now();
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });
  it('manual clock moves only when told', () => {
    const clock = new ManualClock(1000);
    expect(clock.now()).toBe(1000);
    clock.advance(500);
    expect(clock.now()).toBe(1500);
  });
});
