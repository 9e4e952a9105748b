import { afterAll, afterEach, beforeAll, expect } from '@jest/globals';

/**
 * Fails every test of the calling suite after which an unhandled promise rejection (and, when
 * asked, an uncaught exception) was seen: late answers of abandoned calls must never surface.
 *
 * Call it at the top level of a test file, after the suite's own cleanup `afterEach`: Jest runs a
 * block's `afterEach` (and `afterAll`) hooks in the order they were declared, so the check sees
 * what the cleanup caused. `settleMs` lets late rejections arrive before the check.
 */
export function failOnUnhandledRejections(options: { settleMs?: number; uncaughtExceptions?: boolean } = {}): void {
  const { settleMs = 0, uncaughtExceptions = false } = options;
  const seen: unknown[] = [];
  const record = (reason: unknown): void => {
    seen.push(reason);
  };
  beforeAll(() => {
    process.on('unhandledRejection', record);
    if (uncaughtExceptions) process.on('uncaughtException', record);
  });
  afterEach(async () => {
    if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
    expect(seen.splice(0)).toEqual([]);
  });
  afterAll(() => {
    const late = seen.splice(0);
    process.off('unhandledRejection', record);
    if (uncaughtExceptions) process.off('uncaughtException', record);
    expect(late).toEqual([]);
  });
}
