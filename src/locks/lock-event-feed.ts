import type { ActivityRecord, Bolt } from '../domain/lock-vocabulary.js';
import type { LockEventMethod, PortLockEvent } from '../lock-port/lock-port.js';
import type { StoredEvent } from '../store/event-repository.js';
import type { CommandOrigin } from '../store/command-repository.js';

/*
 * What the lock port tells every adapter happened at a lock, with who and how (docs/design.md §11:
 * MQTT's `event` message, the webhooks' `lock.*` and `opener.ring`). Two sources, never both for
 * one thing:
 * - the history: every lock, unlock and ring event once it is committed (taps, door codes at the
 *   keypad, remote commands with their requester), whether it arrived live or was read back after
 *   a reconnect — it is a new event of the history either way;
 * - what the history leaves out on purpose (spec §Events rule 2) but a house wants to hear: a live
 *   move the lock made by hand, by itself or by a fob, a tap of a lock-side user nobody linked, a
 *   code typed at the keypad that is no eKey's, and a jam.
 */

/** Where a remote command came from → how its event came about. */
function methodOfOrigin(origin: CommandOrigin | undefined): LockEventMethod {
  switch (origin) {
    case 'homekit':
      return 'homekit';
    case 'api':
    case 'mqtt':
      return 'app';
    case undefined:
      return 'unknown';
  }
}

/**
 * A committed event of the history as a {@link PortLockEvent}; null for those that are no lock
 * activity (battery readings, codes refused at the keypad). `originOf` answers where the event's
 * remote command came from.
 */
export function portEventOfStored(event: StoredEvent, originOf: (commandId: string) => CommandOrigin | undefined): PortLockEvent | null {
  const kind = event.type === 'lock' ? 'locked' : event.type === 'unlock' ? 'unlocked' : event.type === 'ring' ? 'ring' : null;
  if (kind === null) return null;
  const detail = event.detail;
  const byKeypad = detail?.via === 'keypad';
  let method: LockEventMethod;
  switch (event.source) {
    case 'tap':
      method = byKeypad ? 'keypad' : 'app';
      break;
    case 'command':
      method = event.commandId === null ? 'unknown' : methodOfOrigin(originOf(event.commandId));
      break;
    case 'service':
      // An Opener mode the service switched off by itself (docs/design.md §4d).
      method = 'auto';
      break;
    default:
      method = 'unknown';
  }
  return {
    kind,
    eventId: event.id,
    user: event.performerId === null ? null : { id: event.performerId, name: event.performerName ?? '' },
    method,
    at: event.occurredAt,
    unlatched: detail?.unlatched === true,
    opened: detail?.opened === true,
    mode: detail?.mode ?? null,
    doorCodeEkeyId: byKeypad ? event.ekeyId : null,
    booking: detail?.booking === undefined ? null : { uid: detail.booking.uid, summary: detail.booking.summary },
    commandId: event.commandId,
  };
}

/**
 * A live activity record the history did not record, as a {@link PortLockEvent}; null for those
 * that are reported otherwise or not at all: remote moves (the completed command is an event of
 * the history), rings and refused codes (recorded), and records read back after a reconnect (old
 * news for a house, unlike an event of the history, which is new there).
 */
export function portEventOfUnrecorded(record: ActivityRecord, backlog: boolean): PortLockEvent | null {
  if (backlog || record.ring !== undefined || record.keypadRefused === true || record.source === 'remote') return null;
  let method: LockEventMethod;
  if (record.keypadCodeId !== undefined) method = 'keypad';
  else {
    switch (record.source) {
      case 'manual':
      case 'triple_tap':
        method = 'manual';
        break;
      case 'auto':
        method = 'auto';
        break;
      case 'tap':
        // A lock-side user (a Nuki app authorization) that nobody linked to one of ours.
        method = 'app';
        break;
      case 'fob':
        method = 'unknown';
        break;
    }
  }
  return {
    kind: record.action === 'lock' ? 'locked' : 'unlocked',
    eventId: null,
    user: null,
    method,
    at: record.timestamp,
    unlatched: record.unlatched === true,
    opened: false,
    mode: null,
    doorCodeEkeyId: null,
    booking: null,
    commandId: null,
  };
}

/** A jam: the bolt stuck (docs/design.md §3 Commands `jammed`); who was moving it is the command's to say. */
export function portEventOfJam(bolt: Bolt, before: Bolt | undefined, at: number): PortLockEvent | null {
  if (bolt !== 'jammed' || before === 'jammed') return null;
  return { kind: 'jammed', eventId: null, user: null, method: 'unknown', at, unlatched: false, opened: false, mode: null, doorCodeEkeyId: null, booking: null, commandId: null };
}
