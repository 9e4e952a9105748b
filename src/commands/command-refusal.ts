/**
 * The 403 a command gets when the caller's key is not usable now, explained (docs/design.md §7: "the same
 * evaluation is what a refused command reports"): the problem body carries `not_usable_because`,
 * `next_usable_at`, `usable_until` (ISO 8601 UTC), `lock_time_zone` and `ekey_id`, and its detail
 * says it in words, times on the lock's clock.
 */
import { DateTime } from 'luxon';
import { ServiceError } from '../domain/errors.js';
import type { NotUsableReason } from '../domain/ekey-usability-report.js';
import type { KeyExplanation } from './command-access.js';

const REASONS: Readonly<Record<NotUsableReason, string>> = {
  pending: 'has not been accepted yet',
  revoked: 'has been revoked',
  not_yet_valid: 'is not valid yet',
  expired: 'has expired',
  outside_schedule: 'is outside its schedule now',
};

const iso = (instant: number | null): string | null => (instant === null ? null : new Date(instant).toISOString());

function onLockClock(instant: number, zone: string): string {
  return DateTime.fromMillis(instant, { zone }).toFormat("ccc d LLL yyyy, HH:mm '('z')'");
}

/** The ServiceError for a command refused because the caller's key is not usable at this moment. */
export function keyNotUsableError(lockName: string, explanation: KeyExplanation | undefined): ServiceError {
  if (explanation === undefined) return new ServiceError(403, 'ekey_not_usable', 'Your eKey for this lock is not usable now.');
  const { report, zone } = explanation;
  const reason = report.not_usable_because ?? 'outside_schedule';
  const next = report.next_usable_at === null ? '' : ` It works next from ${onLockClock(report.next_usable_at, zone)}${report.usable_until === null ? '' : ` until ${onLockClock(report.usable_until, zone)}`}.`;
  return new ServiceError(403, 'ekey_not_usable', `Your eKey for ${lockName} ${REASONS[reason]}.${next}`, undefined, undefined, {
    ekey_id: explanation.ekeyId,
    lock_time_zone: zone,
    not_usable_because: reason,
    next_usable_at: iso(report.next_usable_at),
    usable_until: iso(report.usable_until),
  });
}
