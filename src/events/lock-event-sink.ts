import type { LockCommandType } from '../domain/lock-command-type.js';
import type { ActivitySource, LockAction } from '../domain/lock-vocabulary.js';
import type { LockEventType } from '../domain/lock-event-type.js';

export type { LockEventType } from '../domain/lock-event-type.js';

/** What a recorder call produced: the stored event's id, or null when nothing was recorded. */
export interface RecordedEvent {
  id: string;
  lockId: string;
  type: LockEventType;
  performerId: string | null;
  timestamp: number;
  value: number | null;
}

/**
 * The contract between the lock runtime (gateway listeners, command engine) and the event
 * recorder. The runtime reports everything it learns; the recorder decides what becomes a
 * LockEvent (spec §Events rules 1–3, docs/design.md §3 Events):
 * - activity with source `tap` → lock/unlock event, performer = the tapping eKey's user
 *   (recorded and flagged, with a warning logged, when that key is not usable at that moment);
 * - a tap by a lock-side authorization (`actor`, e.g. a Nuki app) → an event with the linked user
 *   as performer; an unlinked authorization → no event, as for fobs (docs/design.md §4b);
 * - activity with source `manual`, `triple_tap`, `fob`, `auto` → no event;
 * - activity with source `remote` → no event here: the command engine reports the completed
 *   command itself, with its requester as performer, so it is recorded exactly once;
 * - battery → a battery event (value 0–1, no performer) only when the level changed;
 * - a code refused at the keypad → a `keypad_refused` event without performer or code (owners
 *   and admins see it; docs/design.md §4c).
 * Every activity record is recorded at most once per (lock, sequence), whether it arrives live
 * or is read back after a reconnect.
 */
export interface LockEventSink {
  recordActivity(input: {
    lockId: string;
    sequence: number;
    action: LockAction;
    source: ActivitySource;
    /** eKey id for taps, else null. */
    credential: string | null;
    /** When the bolt moved (the lock's clock), ms since the epoch. */
    timestamp: number;
    /** A tap by a lock-side authorization (a Nuki app, by name) rather than by an eKey. */
    actor?: string;
    /** The user that authorization is linked to (config `locks[].nuki_users`), null when unlinked. */
    linkedUserId?: string | null;
    /** The unlock pulled the latch (a Nuki's unlatch). */
    unlatched?: boolean;
    /** Not a bolt move but a ring at a Nuki Opener: a `ring` event; `opened` when the Opener opened on it. */
    ring?: { opened: boolean };
    /** docs/design.md §4c: the tap came from the keypad, with the door code of `credential`'s eKey. */
    via?: 'keypad';
    /**
     * docs/design.md §12: the keypad entry was with a rental stay's door code: an event without a
     * performer, `via: keypad` and the stay.
     */
    booking?: { uid: string; summary: string };
    /** docs/design.md §4c: not a bolt move but a code the lock refused at its keypad: a `keypad_refused` event. */
    keypadRefused?: boolean;
  }): RecordedEvent | null;

  recordCommandCompleted(input: {
    lockId: string;
    commandId: string;
    /** The command's type: `unlatch` and the Opener's modes are recorded as §4d says. */
    action: LockCommandType;
    performerId: string;
    timestamp: number;
  }): RecordedEvent;

  recordBattery(input: { lockId: string; level: number; timestamp: number }): RecordedEvent | null;
}
