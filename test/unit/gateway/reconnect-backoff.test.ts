import { describe, expect, it } from '@jest/globals';
import { DEFAULT_BACKOFF, backoffDelay } from '../../../src/gateway/reconnect-backoff.js';

describe('reconnect backoff', () => {
  it('starts at 1 s, doubles per failed attempt and caps at 60 s by default', () => {
    expect([0, 1, 2, 3, 5, 6, 7, 20].map((attempt) => backoffDelay(attempt, DEFAULT_BACKOFF))).toEqual([
      1000, 2000, 4000, 8000, 32_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('follows a custom policy', () => {
    expect([0, 1, 2].map((attempt) => backoffDelay(attempt, { initialMs: 50, maxMs: 120, factor: 3 }))).toEqual([50, 120, 120]);
  });
});
