import { randomFillSync } from 'node:crypto';

let lastMs = 0;
let counter = 0;
// Random bytes are drawn from a pool refilled 256 ids at a time (one syscall instead of 256).
const POOL_IDS = 256;
const pool = Buffer.alloc(16 * POOL_IDS);
let poolOffset = pool.length;

/**
 * A new event id: a UUID version 7 (RFC 9562 §5.7) — 48 bits of Unix milliseconds, then a 12-bit
 * counter that keeps ids minted within one millisecond increasing, then 62 random bits.
 * Time-ordered ids land at the end of the `lock_events.id` index instead of on a random page, which
 * keeps durable ingest fast (docs/performance.md "event-ingest"). Ordering still comes from `seq`;
 * clients must treat ids as opaque.
 */
export function newEventId(nowMs: number = Date.now()): string {
  if (nowMs > lastMs) {
    lastMs = nowMs;
    counter = 0;
  } else {
    counter += 1;
    if (counter > 0xfff) {
      // More than 4096 ids in one millisecond: borrow the next millisecond.
      lastMs += 1;
      counter = 0;
    }
  }
  if (poolOffset >= pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  const ms = lastMs;
  bytes[0] = Math.floor(ms / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(ms / 2 ** 32) & 0xff;
  bytes[2] = Math.floor(ms / 2 ** 24) & 0xff;
  bytes[3] = Math.floor(ms / 2 ** 16) & 0xff;
  bytes[4] = Math.floor(ms / 2 ** 8) & 0xff;
  bytes[5] = ms & 0xff;
  bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
