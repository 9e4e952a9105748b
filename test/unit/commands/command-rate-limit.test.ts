import { describe, expect, it } from '@jest/globals';
import { COMMAND_BURST, COMMAND_REFILL_MS, CommandRateLimit } from '../../../src/commands/command-rate-limit.js';

describe('CommandRateLimit (docs/commands.md "Limits")', () => {
  it('allows a burst of 10, then one every 6 s, never saving up more than the burst', () => {
    const limit = new CommandRateLimit();
    const t0 = 1_000_000;
    for (let index = 0; index < COMMAND_BURST; index += 1) expect(limit.take('u', 'l', t0)).toBe(0);
    expect(limit.take('u', 'l', t0)).toBe(COMMAND_REFILL_MS);
    expect(limit.take('u', 'l', t0 + 4_000)).toBe(2_000);
    expect(limit.take('u', 'l', t0 + COMMAND_REFILL_MS)).toBe(0);
    expect(limit.take('u', 'l', t0 + COMMAND_REFILL_MS)).toBeGreaterThan(0);
    // An idle hour refills the bucket to its burst, not beyond.
    const later = t0 + 3_600_000;
    for (let index = 0; index < COMMAND_BURST; index += 1) expect(limit.take('u', 'l', later)).toBe(0);
    expect(limit.take('u', 'l', later)).toBeGreaterThan(0);
  });

  it('keeps one bucket per user and lock', () => {
    const limit = new CommandRateLimit({ burst: 1 });
    expect(limit.take('u', 'a', 0)).toBe(0);
    expect(limit.take('u', 'a', 0)).toBeGreaterThan(0);
    expect(limit.take('u', 'b', 0)).toBe(0);
    expect(limit.take('v', 'a', 0)).toBe(0);
  });

  it('never lets a clock that went back add tokens', () => {
    const limit = new CommandRateLimit({ burst: 1, refillMs: 1_000 });
    expect(limit.take('u', 'l', 10_000)).toBe(0);
    expect(limit.take('u', 'l', 5_000)).toBeGreaterThan(0);
    expect(limit.take('u', 'l', 10_999)).toBeGreaterThan(0);
    expect(limit.take('u', 'l', 11_000)).toBe(0);
  });
});
