/** Words for what the service decided about a key (docs/design.md §7: "the app explains a refusal"). */
import type { EKey, OwnKey, Problem } from './api.js';
import { keyWindowText, whenText, wireTimeText } from './time.js';

type Window = Pick<EKey, 'type' | 'schedule_start' | 'schedule_end' | 'valid_from' | 'valid_to'>;

/** When the key works, in one sentence: "Your key works weekdays 09:00–17:00 (Europe/Berlin)." */
export function worksText(key: Window, zone: string): string {
  return `Your key works ${keyWindowText(key, zone)}.`;
}

/** The state of one's own key now, and when it works next. */
export function usabilityText(key: OwnKey): string {
  const zone = key.lock_time_zone;
  const until = key.usable_until === null ? '' : ` until ${whenText(key.usable_until, zone)}`;
  const next = key.next_usable_at === null ? '' : ` Next: ${whenText(key.next_usable_at, zone)}${until}.`;
  switch (key.not_usable_because) {
    case null:
      return `Usable now${until}.`;
    case 'pending':
      return 'Waiting for you to accept the invitation.';
    case 'revoked':
      return 'This key has been revoked.';
    case 'expired':
      return `This key has expired${key.valid_to === null ? '' : ` (${wireTimeText(key.valid_to, zone)})`}.`;
    case 'not_yet_valid':
      return `Not valid yet.${next}`;
    case 'outside_schedule':
      return `Outside its hours now.${next}`;
  }
}

/** Why a command was refused, for the person holding `key` (when known). */
export function refusalText(problem: Problem, key: Window | undefined): string {
  const zone = problem.lock_time_zone;
  if (problem.code === 'ekey_not_usable' && key !== undefined && zone !== undefined) {
    const when = problem.next_usable_at ? ` It works next ${whenText(problem.next_usable_at, zone)}.` : '';
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
  return `Refused: ${plainProblemText(problem)}`;
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

/**
 * The service's problem codes in the user's words (docs/design.md §7: no paths, field names or
 * HTTP words reach the user). Codes without a sentence here fall back to a neutral one.
 */
const PROBLEMS: Readonly<Record<string, string>> = {
  ekey_exists: 'This person already holds a key for this lock: change that key in the list instead.',
  ekey_quota_exhausted: 'You have sent as many keys as you may: revoke one you sent, or ask the operator for more.',
  ekey_revoked: 'A revoked key cannot be changed: send a new one.',
  ekey_sending_withdrawn: 'You may no longer send keys for this lock.',
  last_owner_key: "This is the lock's last owner key: give someone else an owner key first.",
  no_usable_ekey: 'You hold no key for this lock that works now.',
  action_not_permitted: 'Your key for this lock does not allow this.',
  owner_key_protected: 'Only an owner of the lock can change owner keys.',
  target_not_permitted: 'Your key for this lock does not allow this on that key.',
  type_above_own: 'You cannot give a key type above your own.',
  lock_unreachable: 'The lock cannot be reached now: it is offline or has no connection to the service.',
  not_found: 'It no longer exists; the page has been refreshed.',
  rate_limited: 'Too many attempts: wait a minute and try again.',
  shutting_down: 'The service is restarting: try again in a moment.',
  webhooks_need_owner: 'Only the owner of a lock can add webhooks.',
  too_many_webhooks: 'You have 20 webhooks already: delete one first.',
};

/** Words for a field the service refused, by the field's name. */
const FIELDS: Readonly<Record<string, string>> = {
  email: 'the e-mail address',
  lock_id: 'the lock',
  type: 'the type',
  name: 'the name',
  message: 'the message',
  valid_from: 'the start',
  valid_to: 'the end',
  schedule_start: 'the schedule',
  schedule_end: 'the schedule',
  url: 'the address',
  events: 'the events',
  lock_ids: 'the locks',
};

/** A problem's field errors in words: "The end must be after the start." */
function fieldSentence(field: string, message: string): string {
  // `/events/2` is about the events: an item's place in a list says nothing to the user.
  const name = field.replace(/^\//, '').replace(/\/\d+$/, '');
  if (/valid_to/.test(name) && /after/.test(message)) return 'The end must be after the start.';
  if (/valid_from/.test(name) && /expired/.test(message)) return 'A guest key starting then would already have ended: choose a later start.';
  if (/valid_to/.test(name) && /guest/.test(message)) return 'A guest key always lasts 24 hours.';
  if (/email/.test(name)) return 'Enter a valid e-mail address.';
  if (/schedule/.test(name)) return 'Choose the days and the hours of the schedule again.';
  if (name === 'url' && /user name or password/.test(message)) return 'Leave the user name and password out of the address: the signature proves who sent a delivery.';
  if (name === 'url') return 'Enter an address that starts with http:// or https://, like https://example.com/hooks/locks.';
  if (name === 'events') return 'Choose at least one of the events in the list.';
  if (name === 'lock_ids') return 'Choose locks you own or administer.';
  const words = FIELDS[name] ?? 'a value';
  return `Check ${words}.`;
}

/** A problem in plain language, for any part of the app. */
export function plainProblemText(problem: Problem): string {
  if (problem.errors && problem.errors.length > 0) {
    const sentences = [...new Set(problem.errors.map((issue) => fieldSentence(issue.field, issue.message)))];
    return sentences.join(' ');
  }
  const known = problem.code === undefined ? undefined : PROBLEMS[problem.code];
  if (known !== undefined) return known;
  if (problem.status === 0) return 'The service cannot be reached: check the connection and try again.';
  if (problem.status >= 500) return 'Something went wrong in the service; try again. If it keeps happening, look at the Homebridge log.';
  if (problem.status === 429) return PROBLEMS.rate_limited ?? '';
  if (problem.status === 404) return 'It no longer exists; the page has been refreshed.';
  if (problem.status === 403) return 'You are not allowed to do this.';
  return 'That did not work; check the form and try again.';
}
