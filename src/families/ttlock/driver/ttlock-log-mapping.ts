import type { ActivityRecord } from '../../../domain/lock-vocabulary.js';
import { TtlockLogType, type TtlockLogRecord } from '../protocol/ttlock-operation-log.js';
import { instantOf } from '../protocol/ttlock-wall-clock.js';
import { keypadCodeIdOf } from './ttlock-keypad-code-id.js';

/** What turning a log record into activity needs to know. */
export interface TtlockLogContext {
  /** The uid the service acts under (pairing drew it): its app records are our own commands. */
  ourUid: number;
  /** The lock's zone: its log times are local wall-clock readings. */
  zone: string;
  /** When the lock joined the service (ms): records before it are history that is not ours to replay. */
  since: number;
}

/** Types that are bolt moves, with the move and who made it (the uid decides for app records). */
const MOVES: ReadonlyMap<number, { action: 'lock' | 'unlock'; source: 'app' | 'keypad' | 'fob' | 'manual' }> = new Map([
  [TtlockLogType.appUnlock, { action: 'unlock', source: 'app' }],
  [TtlockLogType.bluetoothLock, { action: 'lock', source: 'app' }],
  [TtlockLogType.gatewayUnlock, { action: 'unlock', source: 'fob' }],
  [TtlockLogType.passcodeUnlock, { action: 'unlock', source: 'keypad' }],
  [TtlockLogType.passcodeLock, { action: 'lock', source: 'keypad' }],
  [TtlockLogType.adminCodeUnlock, { action: 'unlock', source: 'fob' }],
  [TtlockLogType.icUnlock, { action: 'unlock', source: 'fob' }],
  [TtlockLogType.fingerprintUnlock, { action: 'unlock', source: 'fob' }],
  [TtlockLogType.keyFob, { action: 'unlock', source: 'fob' }],
  [TtlockLogType.fingerprintLock, { action: 'lock', source: 'fob' }],
  [TtlockLogType.icLock, { action: 'lock', source: 'fob' }],
  [TtlockLogType.keypadLock, { action: 'lock', source: 'fob' }],
  [TtlockLogType.keyUnlock, { action: 'unlock', source: 'manual' }],
  [TtlockLogType.keyLock, { action: 'lock', source: 'manual' }],
]);

/** Keypad entries the lock refused: a wrong code, a code outside its window. */
const REFUSED: ReadonlySet<number> = new Set([TtlockLogType.wrongPasscode, TtlockLogType.passcodeExpired]);

/**
 * One log record as activity (docs/design.md §4f "the operation log becomes events"), or null for
 * a record that is no bolt move and no refused entry (codes added, settings):
 * - a passcode unlock or lock: a keypad entry (`fob`) naming the code's id on the lock, which the
 *   service turns into the holder of the eKey whose door code it is (`"via":"keypad"`); any other
 *   code — a vendor's, the admin code — records no event;
 * - a wrong code, or a code outside its window: a refused keypad entry (owners and admins see it,
 *   never the digits);
 * - our own app unlock or lock (our uid): `remote` (the command already has its event); another
 *   app user's, a card's, a fingerprint's: `fob` (no event, as the spec says for fobs);
 * - a key turned in the cylinder: `manual` (TTLocks rarely log it: ttlock-rs never saw one).
 * Records from before the lock joined the service keep their numbering and move, nothing else.
 * The code typed is never carried further than its id, and never logged.
 */
export function activityOfTtlockRecord(record: TtlockLogRecord, sequence: number, context: TtlockLogContext): ActivityRecord | null {
  const timestamp = instantOf(record.time, context.zone);
  const history = timestamp < context.since;
  if (REFUSED.has(record.type)) {
    return history ? null : { sequence, action: 'unlock', source: 'fob', credential: null, timestamp, keypadRefused: true };
  }
  const move = MOVES.get(record.type);
  if (move === undefined) return null;
  const { action } = move;
  if (history) return { sequence, action, source: move.source === 'manual' ? 'manual' : 'fob', credential: null, timestamp };
  switch (move.source) {
    case 'app':
      return { sequence, action, source: record.uid === context.ourUid ? 'remote' : 'fob', credential: null, timestamp };
    case 'keypad': {
      const entry: ActivityRecord = { sequence, action, source: 'fob', credential: null, timestamp };
      if (record.passcode !== undefined) entry.keypadCodeId = keypadCodeIdOf(record.passcode);
      return entry;
    }
    case 'fob':
    case 'manual':
      return { sequence, action, source: move.source, credential: null, timestamp };
  }
}
