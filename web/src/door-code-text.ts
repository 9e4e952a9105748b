/**
 * A door code's state in plain words (docs/design.md §4c, §7): what the lock holds, never the
 * service's field names; times 24-hour on the lock's clock with its zone.
 */
import type { DoorCode } from './api.js';
import { whenText } from './time.js';

/** Why the lock did not take a code, as a clause: "the keypad is full …". */
export function failureReasonText(reason: string | null): string {
  switch (reason) {
    case 'keypad_full':
      return 'the keypad is full (it holds 100 codes): remove some in the Nuki app';
    case 'refused_by_lock':
      return 'the lock refused the code';
    case 'link_lost':
      return 'the lock went out of reach while the code was being written';
    case 'timeout':
      return 'the lock did not answer in time';
    case 'no_security_pin':
      return 'the lock was paired without its security PIN: pair it again with the PIN';
    case 'bad_security_pin':
      return 'the lock does not accept its security PIN: pair it again with the right PIN';
    default:
      return 'the lock did not take it';
  }
}

/** Where the code stands, for the lock's owners and admins: "On the lock since Thu 26 Nov 2026, 17:05 (UTC)." */
export function doorCodeStateText(doorCode: DoorCode, zone: string): string {
  const since = whenText(doorCode.updated_at, zone);
  switch (doorCode.state) {
    case 'waiting':
      return 'Waiting: it goes onto the lock once they sign up.';
    case 'setting':
      return 'Being written onto the lock; it is tried again each time the lock is in reach.';
    case 'set':
      return `On the lock since ${since}.`;
    case 'failed':
      return `Not on the lock: ${failureReasonText(doorCode.failure_reason)}. It is tried again when the lock next connects.`;
    case 'removing':
      return 'Being taken off the lock; until the lock is in reach, the lock still holds it.';
    case 'removed':
      return `Taken off the lock on ${since}.`;
  }
}

/** The holder's view of where their code stands (nothing to say once it is on the lock but that it works offline). */
export function holderDoorCodeText(doorCode: DoorCode): string {
  switch (doorCode.state) {
    case 'set':
      return 'Type it on the keypad at the door: it works there even without a network.';
    case 'waiting':
    case 'setting':
      return 'It is being written onto the lock: it works at the keypad once the lock has it.';
    case 'failed':
      return `It is not on the lock yet: ${failureReasonText(doorCode.failure_reason)}. Ask the lock's owner.`;
    case 'removing':
    case 'removed':
      return 'It has been taken off the lock.';
  }
}

/** docs/door-codes.md: a window the lock cannot hold is kept by the service switching the code on and off. */
export const SERVICE_ENFORCED_TEXT =
  'The lock cannot hold these hours itself: the code is switched on and off at each start and end, and outside its hours it keeps working until that has reached the lock.';

/** docs/design.md §4c: the digits of an owner's or admin's key are shown to its holder alone. */
export const HOLDER_ONLY_TEXT = 'Only the holder of this eKey sees its digits.';

/** A code that is (or will be) on the lock whose digits this viewer is not shown: an owner's or admin's key. */
export function digitsKeptFromOthers(doorCode: DoorCode): boolean {
  return doorCode.code === null && doorCode.state !== 'removing' && doorCode.state !== 'removed';
}
