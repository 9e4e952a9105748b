/** Words for what the service decided about a key (docs/design.md §7: "the app explains a refusal"). */
import type { EKey, OwnKey, Problem } from './api.js';
import { describeSchedule, fromExpressions } from './schedule-editor.js';
import { onClock, specForHumans } from './time.js';

/** "weekdays 9:00–17:00, Europe/Berlin", or the raw expressions the editor cannot show. */
export function scheduleText(key: Pick<EKey, 'schedule_start' | 'schedule_end'>, zone: string): string | undefined {
  const schedule = fromExpressions(key.schedule_start, key.schedule_end);
  if (schedule === null) return undefined;
  if (schedule === undefined) return `from "${key.schedule_start ?? '*'}" to "${key.schedule_end ?? '*'}", ${zone}`;
  return describeSchedule(schedule, zone);
}

/** When the key works, in one sentence: "Your key works weekdays 9:00–17:00, Europe/Berlin." */
export function worksText(key: Pick<EKey, 'schedule_start' | 'schedule_end' | 'valid_from' | 'valid_to'>, zone: string): string {
  const schedule = scheduleText(key, zone);
  const parts = [schedule === undefined ? `at any time (${zone})` : schedule];
  if (key.valid_from !== null) parts.push(`from ${specForHumans(key.valid_from)}`);
  if (key.valid_to !== null) parts.push(`until ${specForHumans(key.valid_to)}`);
  return `Your key works ${parts.join(' ')}.`;
}

/** The state of one's own key now, and when it works next. */
export function usabilityText(key: OwnKey): string {
  const zone = key.lock_time_zone;
  const until = key.usable_until === null ? '' : ` until ${onClock(key.usable_until, zone)}`;
  const next = key.next_usable_at === null ? '' : ` Next: ${onClock(key.next_usable_at, zone)}${until}.`;
  switch (key.not_usable_because) {
    case null:
      return `Usable now${until}.`;
    case 'pending':
      return 'Waiting for you to accept the invitation.';
    case 'revoked':
      return 'This key has been revoked.';
    case 'expired':
      return `This key has expired${key.valid_to === null ? '' : ` (${specForHumans(key.valid_to)})`}.`;
    case 'not_yet_valid':
      return `Not valid yet.${next}`;
    case 'outside_schedule':
      return `Outside its hours now.${next}`;
  }
}

/** Why a command was refused, for the person holding `key` (when known). */
export function refusalText(problem: Problem, key: Pick<EKey, 'schedule_start' | 'schedule_end' | 'valid_from' | 'valid_to'> | undefined): string {
  const zone = problem.lock_time_zone;
  if (problem.code === 'ekey_not_usable' && key !== undefined && zone !== undefined) {
    const when = problem.next_usable_at ? ` It works next ${onClock(problem.next_usable_at, zone)}.` : '';
    const reason =
      problem.not_usable_because === 'expired'
        ? 'Your key has expired.'
        : problem.not_usable_because === 'revoked'
          ? 'Your key has been revoked.'
          : problem.not_usable_because === 'pending'
            ? 'Your key has not been accepted yet.'
            : worksText(key, zone);
    return `Refused: ${reason}${when}`;
  }
  if (problem.status === 404) return 'Refused: you no longer hold a key for this lock.';
  return `Refused: ${problem.detail ?? 'the service did not accept the command.'}`;
}

const FAILURES: Readonly<Record<string, string>> = {
  jammed: 'the bolt is jammed',
  timeout: 'the lock did not answer in time',
  delivery_failed: 'the command could not be delivered to the lock',
  lock_offline: 'the lock is offline',
  interrupted: 'the service restarted during the command',
  superseded: 'a newer command replaced it',
};

/** A command's failure_reason in words. */
export const failureText = (reason: string | null): string => FAILURES[reason ?? ''] ?? 'the lock reported an error';
