/**
 * The door code of an eKey as the API sees it (docs/design.md §4c): giving and taking codes as
 * eKeys are sent, changed, revoked and purged (inside the eKey service's transaction), and the
 * `door_code` object of every eKey answer. Writing codes onto locks is the sync engine's
 * (src/locks/door-code-sync.ts); this side only records what should happen, so the API never says
 * `set` or `removed` before the lock did.
 */
import type { Clock } from '../domain/clock.js';
import { generateDoorCode, type DoorCodeRules } from '../domain/door-code.js';
import { doorCodeWindow } from '../domain/door-code-window.js';
import { doorCodeDigitsVisible, type DoorCodeViewer } from '../domain/door-code-visibility.js';
import type { EKey } from '../domain/ekey-types.js';
import { ServiceError } from '../domain/errors.js';
import type { DoorCodeRecord, DoorCodeRepository, DoorCodeState } from '../store/door-code-repository.js';
import type { LockRecord } from '../store/lock-repository.js';

/** `door_code` of an eKey object; null when the key never had a code. */
export interface DoorCodeView {
  /**
   * Six digits, for those who may see them (src/domain/door-code-visibility.ts); null for
   * everyone else, while the code is being removed, and once removed.
   */
  code: string | null;
  state: DoorCodeState;
  enforced_by: 'lock' | 'service';
  /** Why it failed (`keypad_full`, `refused_by_lock`, …); null in every other state. */
  failure_reason: string | null;
  /** ISO 8601 UTC. */
  updated_at: string;
}

/** The key fields that decide the code's window. */
type WindowKey = Pick<EKey, 'type' | 'valid_from' | 'valid_to' | 'schedule_start' | 'schedule_end'>;

export interface DoorCodeServiceDependencies {
  doorCodes: DoorCodeRepository;
  clock: Clock;
  /** The rules of a lock's keypad (its family's); undefined for a lock whose family takes none. */
  keypadRulesOf: (lockId: string) => DoorCodeRules | undefined;
  /** Uniform integer in [0, n) from a CSPRNG (tests may inject one). */
  randomBelow?: (n: number) => number;
}

/** States in which the lock may hold the code (or is about to). */
const ON_ITS_WAY: ReadonlySet<DoorCodeState> = new Set(['setting', 'set', 'failed']);

export class DoorCodeService {
  constructor(private readonly deps: DoorCodeServiceDependencies) {}

  /** The rules of the lock's keypad. @throws 400 `lock_has_no_keypad` when its family takes none. */
  private keypadOf(lockId: string): DoorCodeRules {
    const rules = this.deps.keypadRulesOf(lockId);
    if (rules === undefined) throw new ServiceError(400, 'lock_has_no_keypad', 'This lock takes no keypad, so its eKeys cannot carry a door code.', [{ field: '/door_code', message: 'the lock has no keypad' }]);
    return rules;
  }

  /** 400 `lock_has_no_keypad` for `door_code: true` on a lock without a keypad. */
  assertAllowed(lock: Pick<LockRecord, 'keypad' | 'name'>, doorCode: boolean | undefined): void {
    if (doorCode === true && !lock.keypad) {
      throw new ServiceError(400, 'lock_has_no_keypad', `${lock.name} has no keypad, so its eKeys cannot carry a door code.`, [
        { field: '/door_code', message: 'the lock has no keypad' },
      ]);
    }
  }

  /** POST /ekey: a key sent with `door_code: true` gets a fresh code (inside the send's transaction). */
  afterSend(key: EKey & WindowKey, doorCode: boolean | undefined): void {
    if (doorCode === true) this.give(key);
  }

  /**
   * PUT /ekey/{id} (inside its transaction): `false` takes the code away, `true` gives one when the
   * key has none (a code that is being removed is not revived: a new one is made), and a change of
   * window or type rewrites the code's window on the lock.
   */
  afterUpdate(before: WindowKey, after: EKey & WindowKey, doorCode: boolean | undefined): void {
    const now = this.deps.clock.now();
    let current = this.deps.doorCodes.currentFor(after.id);
    if (doorCode === false) {
      if (current !== undefined) this.takeAway(current, now);
      return;
    }
    if (doorCode === true && (current === undefined || current.state === 'removing' || current.state === 'removed')) {
      this.give(after);
      return;
    }
    if (current === undefined || !windowChanged(before, after)) return;
    const enforcedBy = doorCodeWindow(after, this.keypadOf(after.lock_id)).enforcedBy;
    if (ON_ITS_WAY.has(current.state)) current = { ...current, state: 'setting', failureReason: null, enforcedBy, updatedAt: now };
    else if (current.state === 'waiting') current = { ...current, enforcedBy, updatedAt: now };
    else return;
    this.deps.doorCodes.update(current);
  }

  /** DELETE /ekey/{id} (revoke or purge, inside its transaction): the code comes off the lock. */
  afterRemove(key: Pick<EKey, 'id'>): void {
    const current = this.deps.doorCodes.currentFor(key.id);
    if (current !== undefined) this.takeAway(current, this.deps.clock.now());
  }

  /**
   * The `door_code` object of a key at `now` as `viewer` may see it, or null. What the row says,
   * read against the key now: a waiting code of an accepted key is `setting`, a code of a revoked
   * or expired key that the engine has not reached yet is `removing` — the lock confirmed neither
   * yet. The digits only for whom docs/design.md §4c shows them.
   */
  view(key: Pick<EKey, 'id' | 'status' | 'valid_to' | 'user_id' | 'type'>, viewer: DoorCodeViewer, now: number = this.deps.clock.now()): DoorCodeView | null {
    const current = this.deps.doorCodes.currentFor(key.id);
    if (current === undefined) return null;
    let state = current.state;
    const ended = key.status === 'revoked' || (key.valid_to !== null && key.valid_to <= now);
    if (state === 'waiting' && key.status === 'accepted' && !ended) state = 'setting';
    else if (ended && (ON_ITS_WAY.has(state) || state === 'waiting')) state = state === 'waiting' ? 'removed' : 'removing';
    return {
      code: doorCodeDigitsVisible(viewer, key, state) ? current.code : null,
      state,
      enforced_by: current.enforcedBy,
      failure_reason: state === 'failed' ? current.failureReason : null,
      updated_at: new Date(current.updatedAt).toISOString(),
    };
  }

  private give(key: EKey & WindowKey): void {
    const now = this.deps.clock.now();
    const taken = this.deps.doorCodes.codesOnLock(key.lock_id);
    const rules = this.keypadOf(key.lock_id);
    const code = this.deps.randomBelow === undefined ? generateDoorCode(taken, rules) : generateDoorCode(taken, rules, this.deps.randomBelow);
    this.deps.doorCodes.insert({
      ekeyId: key.id,
      lockId: key.lock_id,
      code,
      state: key.status === 'accepted' ? 'setting' : 'waiting',
      enforcedBy: doorCodeWindow(key, rules).enforcedBy,
      failureReason: null,
      lockCodeId: null,
      written: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  private takeAway(current: DoorCodeRecord, now: number): void {
    if (current.state === 'waiting') {
      // Never on the lock: nothing to remove.
      this.deps.doorCodes.update({ ...current, state: 'removed', code: null, failureReason: null, updatedAt: now });
    } else if (ON_ITS_WAY.has(current.state)) {
      this.deps.doorCodes.update({ ...current, state: 'removing', failureReason: null, updatedAt: now });
    }
  }
}

function windowChanged(before: WindowKey, after: WindowKey): boolean {
  return (
    before.type !== after.type ||
    before.valid_from !== after.valid_from ||
    before.valid_to !== after.valid_to ||
    before.schedule_start !== after.schedule_start ||
    before.schedule_end !== after.schedule_end
  );
}
