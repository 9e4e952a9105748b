/**
 * "When can I get in?" — a key's usability explained (docs/design.md §7): whether it is usable now, why
 * not, when it is usable next and until when. Built on the same rule that judges commands and
 * taps ({@link usabilityAt}): every instant reported here is one where that rule changes its answer.
 */
import { occurrencesAfter, scheduleCrons, wallClockAsUtc } from './ekey-schedule.js';
import { isUsableAt, usabilityAt, type UsabilityFields } from './ekey-validity.js';

/** Why a key is not usable now (null in {@link UsabilityReport} when it is). */
export type NotUsableReason = 'pending' | 'revoked' | 'not_yet_valid' | 'expired' | 'outside_schedule';

export interface UsabilityReport {
  usable_now: boolean;
  not_usable_because: NotUsableReason | null;
  /**
   * Epoch ms when a key that is not usable now becomes usable; null when it is usable now, or
   * when it never will be as it stands (pending, revoked, expired, no schedule opening before
   * `valid_to`).
   */
  next_usable_at: number | null;
  /**
   * Epoch ms when the usable stretch that is current (usable now) or next (`next_usable_at`)
   * ends; null when it does not end or there is no such stretch.
   */
  usable_until: number | null;
}

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** Schedules repeat weekly: a week and a day of occurrences always holds the next opening or closing. */
const SEARCH_SPAN_MS = 8 * DAY_MS;
/** Looking back this far on the wall clock finds occurrences inside a repeated (fall-back) hour. */
const LOOK_BACK_MS = 3 * 60 * MINUTE_MS;
const BATCH = 256;

/**
 * Explains `key` at `nowMs` with its schedule read on the wall clock of `zone` (the lock's).
 *
 * @throws RangeError for an invalid zone or a corrupt stored schedule.
 */
export function usabilityReport(key: UsabilityFields, nowMs: number, zone: string): UsabilityReport {
  const now = usabilityAt(key, nowMs, zone);
  switch (now) {
    case 'not_accepted':
      return { usable_now: false, not_usable_because: key.status === 'revoked' ? 'revoked' : 'pending', next_usable_at: null, usable_until: null };
    case 'expired':
      return { usable_now: false, not_usable_because: 'expired', next_usable_at: null, usable_until: null };
    case 'usable':
      return { usable_now: true, not_usable_because: null, next_usable_at: null, usable_until: endOfStretch(key, nowMs, zone) };
    case 'not_yet_valid':
    case 'outside_schedule': {
      const next = nextUsableInstant(key, nowMs, zone);
      return {
        usable_now: false,
        not_usable_because: now,
        next_usable_at: next,
        usable_until: next === null ? null : endOfStretch(key, next, zone),
      };
    }
  }
}

/** The first instant after `fromMs` (or at `valid_from`, when later) at which the key is usable. */
function nextUsableInstant(key: UsabilityFields, fromMs: number, zone: string): number | null {
  const from = key.valid_from !== null && key.valid_from > fromMs ? key.valid_from : fromMs;
  if (key.valid_to !== null && from >= key.valid_to) return null;
  if (isUsableAt(key, from, zone)) return from;
  const crons = scheduleCrons(key.schedule_start, key.schedule_end);
  if (crons === null) return null;
  return firstInstant(crons.startCron, from, zone, key.valid_to, (instant) => isUsableAt(key, instant, zone) ? instant : undefined) ?? null;
}

/** The first instant after `fromMs` at which a key usable at `fromMs` stops being usable; null: never. */
function endOfStretch(key: UsabilityFields, fromMs: number, zone: string): number | null {
  const crons = scheduleCrons(key.schedule_start, key.schedule_end);
  if (crons === null) return key.valid_to;
  const found = firstInstant(crons.endCron, fromMs, zone, key.valid_to, (instant) => (isUsableAt(key, instant, zone) ? undefined : instant));
  // No closing within a week: the schedule never closes, only the validity window ends it.
  return found === undefined ? key.valid_to : found;
}

/**
 * Walks the instants after `fromMs` at which `cron` occurs on the wall clock of `zone`, in order,
 * for a week and a day, and returns the first that `pick` accepts; at `limitMs` (`valid_to`, null:
 * none) the walk ends with what `pick` says of that limit (null when it refuses it). Undefined:
 * nothing within the span.
 */
function firstInstant(
  cron: string,
  fromMs: number,
  zone: string,
  limitMs: number | null,
  pick: (instant: number) => number | undefined,
): number | null | undefined {
  const startWall = wallClockAsUtc(fromMs, zone) - LOOK_BACK_MS;
  const endWall = startWall + LOOK_BACK_MS + SEARCH_SPAN_MS;
  let cursor = startWall;
  while (cursor < endWall) {
    const batch = occurrencesAfter(cron, cursor, BATCH);
    if (batch.length === 0) return undefined;
    for (const wall of batch) {
      if (wall > endWall) return undefined;
      for (const instant of instantsShowing(wall, zone)) {
        if (instant <= fromMs) continue;
        if (limitMs !== null && instant >= limitMs) return limitOutcome(pick, limitMs);
        const picked = pick(instant);
        if (picked !== undefined) return picked;
      }
    }
    cursor = batch[batch.length - 1] ?? endWall;
  }
  return undefined;
}

/** At the validity limit: a search for an opening has failed (null), one for a closing has found it. */
function limitOutcome(pick: (instant: number) => number | undefined, limitMs: number): number | null {
  // `pick` of a closing search accepts any instant where the key is not usable — `valid_to` is one.
  return pick(limitMs) ?? null;
}

/**
 * The instants at which the clock of `zone` shows `wallMs` (a wall-clock reading as if UTC): one
 * normally, two in a repeated (fall-back) hour, and in a skipped (spring-forward) hour the instant
 * the clock jumps past it — when a window opening or closing there takes effect.
 */
export function instantsShowing(wallMs: number, zone: string): number[] {
  const offsets = new Set([offsetAt(wallMs - 36 * 60 * MINUTE_MS, zone), offsetAt(wallMs, zone), offsetAt(wallMs + 36 * 60 * MINUTE_MS, zone)]);
  const exact = [...offsets]
    .map((offset) => wallMs - offset * MINUTE_MS)
    .filter((instant) => wallClockAsUtc(instant, zone) === wallMs)
    .sort((a, b) => a - b);
  if (exact.length > 0) return [...new Set(exact)];
  // In a gap: the first minute whose wall clock is at or past `wallMs`.
  const sorted = [...offsets].sort((a, b) => a - b);
  let low = Math.floor((wallMs - (sorted[sorted.length - 1] ?? 0) * MINUTE_MS) / MINUTE_MS);
  let high = Math.ceil((wallMs - (sorted[0] ?? 0) * MINUTE_MS) / MINUTE_MS);
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (wallClockAsUtc(middle * MINUTE_MS, zone) >= wallMs) high = middle;
    else low = middle + 1;
  }
  return [low * MINUTE_MS];
}

function offsetAt(instantMs: number, zone: string): number {
  return (wallClockAsUtc(instantMs, zone) - instantMs) / MINUTE_MS;
}
