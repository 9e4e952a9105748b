/**
 * The door-code sync engine (docs/design.md §4c): keeps what each keypad lock holds equal to the
 * door codes of its eKeys. States are true — a code is `set` or `removed` only once the lock
 * confirmed it; a lock out of reach keeps its codes `setting`/`removing`, retried at every connect
 * and advertisement until done; the rows are persisted, so this survives restarts. Codes the
 * service did not make are never changed or removed. Service-enforced codes are enabled and
 * disabled at each window edge (timers on the injected clock) — or, on a keypad that cannot hold a
 * code switched off (its family's `canDisableCodes`), put on the lock at each window start with
 * the window's end as its date range and taken off at each end; expiry takes a code off.
 */
import type { Clock } from '../domain/clock.js';
import { generateDoorCode, type DoorCodeRules } from '../domain/door-code.js';
import { doorCodeRulesOf } from '../families/registry.js';
import { currentWindowEnd, doorCodeWindow, nextDoorCodeEdge, type DoorCodeEnforcer, type KeypadWindow } from '../domain/door-code-window.js';
import { isUsableAt } from '../domain/ekey-validity.js';
import type { StoredEKey } from '../store/ekey-repository.js';
import { doorCodeHolderName } from '../domain/door-code-holder.js';
import { describeError } from '../domain/errors.js';
import { KeypadError, type KeypadAccess, type KeypadCode, type KeypadCodeWrite, type KeypadSessionResult } from '../gateway/keypad-access.js';
import type { Logger } from '../logger.js';
import type { DoorCodeRecord, DoorCodeRepository } from '../store/door-code-repository.js';
import type { LockRecord } from '../store/lock-repository.js';

/** What the engine reads of a code's holder: an eKey, or a stay's code (docs/design.md §12). */
export type DoorCodeHolder = Pick<StoredEKey, 'id' | 'status' | 'valid_from' | 'valid_to' | 'schedule_start' | 'schedule_end'>;

/** The gateway as the engine needs it. */
export interface DoorCodeGateway {
  keypadSession<T>(lockId: string, work: (keypad: KeypadAccess) => Promise<T>, timeoutMs?: number): Promise<KeypadSessionResult<T>>;
  isReachable(lockId: string): boolean;
  on(event: 'synchronised' | 'advertised', listener: (event: { lockId: string }) => void): unknown;
  off(event: 'synchronised' | 'advertised', listener: (event: { lockId: string }) => void): unknown;
}

export interface DoorCodeSyncDependencies {
  doorCodes: DoorCodeRepository;
  /**
   * The holder of a code row by its id (the rows' `ekey_id`): an eKey, or a stay of a rental
   * calendar standing in as one (src/calendars/stay-code-holders.ts: accepted within its window,
   * pending while it is more than 30 days away, revoked once cancelled).
   */
  ekeys: { findById(id: string): DoorCodeHolder | undefined };
  locks: { findById(id: string): LockRecord | undefined };
  gateway: DoorCodeGateway;
  /** The eKey service's change hook (sends, changes, revocations, sign-ups). */
  changes?: { onChange(listener: (lockId: string) => void): () => void };
  clock: Clock;
  logger: Logger;
  /** Budget of one session with the lock, ms (default 30 000). */
  sessionTimeoutMs?: number;
  /**
   * Told, after the row is stored, of each code the lock confirmed holding (`set`, when it was not
   * set before), confirmed removing (`removed`), or refused or could not be reached for (`failed`).
   * A listener's throw is logged, never the sync's concern.
   */
  outcomes?: (row: DoorCodeRecord, before: DoorCodeRecord) => void;
  /** The rules of a lock's keypad (default: its family's, src/families/registry.ts). */
  keypadRulesOf?: (lock: LockRecord) => DoorCodeRules | undefined;
}

/** What the lock should hold for a row: nothing, or this code. */
type Desired = null | { enabled: boolean; window: KeypadWindow; enforcedBy: DoorCodeEnforcer };

/**
 * Why a sync is asked for. Failed codes are retried on connects and changes; on an advertisement
 * only those whose link failed (the lock dropped mid-write or went silent: it is near again now),
 * not those the lock refused (a full keypad answers the same on every advertisement).
 */
type Reason = 'change' | 'connect' | 'advertisement' | 'timer' | 'start';

/** Failures of the link, not of the lock's judgement: worth another try as soon as the lock is heard again. */
const LINK_FAILURES: ReadonlySet<string | null> = new Set(['link_lost', 'timeout']);

/** Whether a sync for `reason` should (re)write this row. */
function worthTrying(row: DoorCodeRecord, reason: Reason): boolean {
  return row.state !== 'failed' || reason !== 'advertisement' || LINK_FAILURES.has(row.failureReason);
}

/** The name a code of ours carries on the lock (how it is recognised after a write the lock never confirmed). */
export function doorCodeName(holderId: string): string {
  return doorCodeHolderName(holderId);
}

export class DoorCodeSync {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** Locks with work left that only the lock can finish: retried on its next advertisement or connect. */
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private started = false;
  private readonly onSynchronised = (event: { lockId: string }): void => {
    void this.request(event.lockId, 'connect');
  };
  private readonly onAdvertised = (event: { lockId: string }): void => {
    if (this.pending.has(event.lockId) && !this.running.has(event.lockId)) void this.request(event.lockId, 'advertisement');
  };

  constructor(private readonly deps: DoorCodeSyncDependencies) {}

  /** Listens for changes, connects and advertisements, and takes up whatever is unfinished (after a restart too). Idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.unsubscribe =
      this.deps.changes?.onChange((lockId) => {
        void this.request(lockId, 'change');
      }) ?? null;
    this.deps.gateway.on('synchronised', this.onSynchronised);
    this.deps.gateway.on('advertised', this.onAdvertised);
    void this.reevaluate('start');
  }

  stop(): void {
    this.started = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.deps.gateway.off('synchronised', this.onSynchronised);
    this.deps.gateway.off('advertised', this.onAdvertised);
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Re-reads every lock with unfinished codes at the clock's now: expired keys' codes come off,
   * service-enforced codes follow their windows. The timer calls it at the next edge; tests with a
   * manual clock may too. Resolves when the sessions it started are done; never rejects.
   */
  async reevaluate(reason: Reason = 'timer'): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    let locks: string[];
    try {
      locks = this.deps.doorCodes.locksWithOpenCodes();
    } catch (error) {
      this.deps.logger.error(`Door codes: could not read the unfinished codes: ${describeError(error)}`);
      return;
    }
    await Promise.all(locks.map((lockId) => this.request(lockId, reason)));
    this.schedule();
  }

  /** Resolves once no session is running or queued for any lock. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }

  /** Asks for a sync of one lock; resolves when it (and any it queued) is done. Never rejects. */
  request(lockId: string, reason: Reason): Promise<void> {
    const id = lockId.toLowerCase();
    if (!this.started) return Promise.resolve();
    const current = this.running.get(id);
    if (current !== undefined) {
      // A connect during our own session is our session's: it reads everything anyway.
      if (reason !== 'connect' && reason !== 'advertisement') this.again.add(id);
      return current;
    }
    const run = (async () => {
      try {
        do {
          this.again.delete(id);
          await this.syncLock(id, reason);
        } while (this.again.has(id) && this.started);
      } catch (error) {
        this.deps.logger.error(`Door codes of lock ${id}: ${describeError(error)}`);
      } finally {
        this.running.delete(id);
      }
    })();
    this.running.set(id, run);
    return run;
  }

  /** Records what needs no lock, then — when the lock has work and is near — one session with it. */
  private async syncLock(lockId: string, reason: Reason): Promise<void> {
    const lock = this.deps.locks.findById(lockId);
    if (lock === undefined) return;
    const now = this.deps.clock.now();
    const work = this.prepare(lock, now);
    if (!work.some((item) => item.needsLock && worthTrying(item.row, reason))) {
      this.pending.delete(lockId);
      if (reason === 'change') this.schedule();
      return;
    }
    if (!this.deps.gateway.isReachable(lockId)) {
      this.pending.add(lockId);
      return;
    }
    let result: KeypadSessionResult<void>;
    try {
      result = await this.deps.gateway.keypadSession(lockId, (keypad) => this.session(lock, keypad), this.deps.sessionTimeoutMs ?? 30_000);
    } catch (error) {
      // The link failed under a write (recorded on the code) or under the read of the codes.
      this.deps.logger.warn(`Door codes of lock ${lock.name}: the lock could not be updated now (${describeError(error)}); retrying when it is near.`);
      this.pending.add(lockId);
      return;
    }
    if (result.status !== 'done') {
      if (result.status === 'no_keypad') this.deps.logger.warn(`Door codes of lock ${lock.name}: its driver has no keypad.`);
      this.pending.add(lockId);
      return;
    }
    const left = this.prepare(lock, this.deps.clock.now()).some((item) => item.needsLock && worthTrying(item.row, 'advertisement'));
    if (left) this.pending.add(lockId);
    else this.pending.delete(lockId);
    if (reason === 'change' || reason === 'connect') this.schedule();
  }

  /**
   * Brings the rows of a lock up to date with their keys, without the lock: a pending key's code
   * that was accepted starts `setting`; a revoked, purged or expired key's code starts `removing`
   * (`removed` at once when it never reached the lock). Returns each open row and whether the lock
   * must be written for it.
   */
  private prepare(lock: LockRecord, now: number): { row: DoorCodeRecord; needsLock: boolean }[] {
    const rows = this.deps.doorCodes.listOpenByLock(lock.id);
    const items: { row: DoorCodeRecord; needsLock: boolean }[] = [];
    for (const stale of rows) {
      let row = stale;
      const desired = this.desiredOf(row, lock, now);
      if (desired === null && row.state !== 'removing') {
        row = { ...row, state: 'removing', failureReason: null, updatedAt: now };
        this.deps.doorCodes.update(row);
      }
      const needsLock = desired === null ? true : row.state !== 'set' || !sameWritten(row.written, desired);
      items.push({ row, needsLock });
    }
    for (const waiting of this.waitingRows(lock.id)) {
      const key = this.deps.ekeys.findById(waiting.ekeyId);
      const ended = key === undefined || key.status === 'revoked' || (key.valid_to !== null && key.valid_to <= now);
      if (ended) {
        this.deps.doorCodes.update({ ...waiting, state: 'removed', code: null, updatedAt: now });
      } else if (key.status === 'accepted') {
        const row: DoorCodeRecord = { ...waiting, state: 'setting', enforcedBy: doorCodeWindow(key, this.keypadOf(lock)).enforcedBy, updatedAt: now };
        this.deps.doorCodes.update(row);
        items.push({ row, needsLock: true });
      }
    }
    return items;
  }

  private waitingRows(lockId: string): DoorCodeRecord[] {
    return this.deps.doorCodes.listWaitingByLock(lockId);
  }

  /** One session: read the lock's codes, then remove, add or rewrite ours (removals first: they free room). */
  private async session(lock: LockRecord, keypad: KeypadAccess): Promise<void> {
    const onLock = await keypad.listCodes();
    const now = this.deps.clock.now();
    const rows = this.deps.doorCodes.listOpenByLock(lock.id);
    const ordered = [...rows.filter((row) => this.desiredOf(row, lock, now) === null), ...rows.filter((row) => this.desiredOf(row, lock, now) !== null)];
    for (const row of ordered) await this.apply(lock, row, keypad, onLock);
  }

  private async apply(lock: LockRecord, row: DoorCodeRecord, keypad: KeypadAccess, onLock: KeypadCode[]): Promise<void> {
    const now = this.deps.clock.now();
    const desired = this.desiredOf(row, lock, now);
    const mine = findOurs(row, onLock);
    if (desired === null) {
      if (mine !== undefined) {
        try {
          await keypad.removeCode(mine.codeId);
        } catch (error) {
          // Not removed as far as we know: it stays `removing` and is tried again.
          if (error instanceof KeypadError && error.failure !== 'link_lost' && error.failure !== 'timeout') {
            this.deps.logger.warn(`Door codes of lock ${lock.name}: the lock refused to remove a code (${error.failure}); trying again later.`);
            return;
          }
          throw error;
        }
        onLock.splice(onLock.indexOf(mine), 1);
      }
      const removed: DoorCodeRecord = { ...row, state: 'removed', code: null, lockCodeId: null, written: null, failureReason: null, updatedAt: this.deps.clock.now() };
      this.deps.doorCodes.update(removed);
      this.tell(removed, row);
      return;
    }
    if (row.code === null) return;
    if (!desired.enabled && !this.keypadOf(lock).canDisableCodes) {
      await this.keepOff(lock, row, desired, keypad, onLock, mine);
      return;
    }
    let code = row.code;
    const write = (): KeypadCodeWrite => ({ code, name: doorCodeName(row.ekeyId), enabled: desired.enabled, window: desired.window });
    try {
      let codeId: number;
      if (mine !== undefined) {
        codeId = mine.codeId;
        if (!sameCode(mine, write())) await keypad.updateCode(codeId, write());
      } else {
        // Digits someone else put on the lock meanwhile: this code never worked, so it takes new ones.
        if (onLock.some((entry) => entry.code === code)) code = this.freshCode(lock, onLock);
        try {
          codeId = await keypad.addCode(write());
        } catch (error) {
          if (!(error instanceof KeypadError) || error.failure !== 'code_exists') throw error;
          code = this.freshCode(lock, onLock);
          codeId = await keypad.addCode(write());
        }
        onLock.push({ codeId, ...write() });
      }
      const set: DoorCodeRecord = {
        ...row,
        code,
        state: 'set',
        enforcedBy: desired.enforcedBy,
        failureReason: null,
        lockCodeId: codeId,
        written: { enabled: desired.enabled, window: desired.window },
        updatedAt: this.deps.clock.now(),
      };
      this.deps.doorCodes.update(set);
      if (row.state !== 'set') this.tell(set, row);
    } catch (error) {
      if (!(error instanceof KeypadError)) throw error;
      const reason = error.failure === 'code_exists' ? 'refused_by_lock' : error.failure;
      const failed: DoorCodeRecord = { ...row, code, state: 'failed', failureReason: reason, updatedAt: this.deps.clock.now() };
      this.deps.doorCodes.update(failed);
      if (row.state !== 'failed' || row.failureReason !== reason) this.tell(failed, row);
      this.deps.logger.warn(`Door codes of lock ${lock.name}: the code "${doorCodeName(row.ekeyId)}" could not be written (${reason}).`);
      // The link is gone (or silent): nothing more can be written in this session.
      if (error.failure === 'link_lost' || error.failure === 'timeout') throw error;
    }
  }

  /** Tells the `outcomes` listener; its failure is logged and goes no further. */
  private tell(row: DoorCodeRecord, before: DoorCodeRecord): void {
    try {
      this.deps.outcomes?.(row, before);
    } catch (error) {
      this.deps.logger.error(`Door codes: a listener of code outcomes failed: ${describeError(error)}`);
    }
  }

  /**
   * A service-enforced code outside its window on a keypad that cannot switch a code off: it must
   * not be on the lock. Ours comes off (if there); the row stays `set` — the lock holds what the
   * service wants for now — and keeps the code's id on the lock, so a keypad entry read from the
   * log later is still the holder's.
   */
  private async keepOff(lock: LockRecord, row: DoorCodeRecord, desired: NonNullable<Desired>, keypad: KeypadAccess, onLock: KeypadCode[], mine: KeypadCode | undefined): Promise<void> {
    if (mine !== undefined) {
      try {
        await keypad.removeCode(mine.codeId);
      } catch (error) {
        if (!(error instanceof KeypadError)) throw error;
        const reason = error.failure === 'code_exists' ? 'refused_by_lock' : error.failure;
        const failed: DoorCodeRecord = { ...row, state: 'failed', failureReason: reason, updatedAt: this.deps.clock.now() };
        this.deps.doorCodes.update(failed);
        if (row.state !== 'failed' || row.failureReason !== reason) this.tell(failed, row);
        this.deps.logger.warn(`Door codes of lock ${lock.name}: the code "${doorCodeName(row.ekeyId)}" could not be taken off at its window's end (${error.failure}).`);
        if (error.failure === 'link_lost' || error.failure === 'timeout') throw error;
        return;
      }
      onLock.splice(onLock.indexOf(mine), 1);
    }
    const set: DoorCodeRecord = {
      ...row,
      state: 'set',
      enforcedBy: desired.enforcedBy,
      failureReason: null,
      lockCodeId: mine?.codeId ?? row.lockCodeId,
      written: { enabled: false, window: desired.window },
      updatedAt: this.deps.clock.now(),
    };
    this.deps.doorCodes.update(set);
    if (row.state !== 'set') this.tell(set, row);
  }

  /** Null: the lock should not hold the row's code. */
  private desiredOf(row: DoorCodeRecord, lock: LockRecord, now: number): Desired {
    if (row.state === 'removing' || row.state === 'removed' || row.state === 'waiting') return null;
    const key = this.deps.ekeys.findById(row.ekeyId);
    if (key === undefined || key.status !== 'accepted') return null;
    if (key.valid_to !== null && key.valid_to <= now) return null;
    if (this.deps.doorCodes.currentFor(key.id)?.id !== row.id) return null;
    const keypad = this.keypadOf(lock);
    const mapped = doorCodeWindow(key, keypad);
    if (mapped.enforcedBy === 'lock') return { enabled: true, window: mapped.window, enforcedBy: 'lock' };
    const usable = (instant: number): boolean => isUsableAt(key, instant, lock.timeZone);
    if (keypad.canDisableCodes || !usable(now)) return { enabled: usable(now), window: mapped.window, enforcedBy: 'service' };
    // docs/door-codes.md: on a keypad without an off switch, the lock itself ends each window.
    const end = currentWindowEnd(key, now, lock.timeZone, usable);
    const until = end === null ? mapped.window.allowedUntil : Math.min(end, mapped.window.allowedUntil ?? end);
    return { enabled: true, window: { ...mapped.window, allowedUntil: until }, enforcedBy: 'service' };
  }

  private freshCode(lock: LockRecord, onLock: readonly KeypadCode[]): string {
    const taken = this.deps.doorCodes.codesOnLock(lock.id);
    for (const entry of onLock) taken.add(entry.code);
    const rules = this.rulesOf(lock);
    if (rules === undefined) throw new Error(`lock ${lock.name}'s family takes no keypad codes`);
    return generateDoorCode(taken, rules);
  }

  /** What the lock's keypad holds: a weekly window beside the date range, or not; codes switched off, or not (its family's rules). */
  private keypadOf(lock: LockRecord): { weeklyWindow: boolean; canDisableCodes: boolean } {
    const rules = this.rulesOf(lock);
    return { weeklyWindow: rules?.weeklyWindow ?? true, canDisableCodes: rules?.canDisableCodes ?? true };
  }

  private rulesOf(lock: LockRecord): DoorCodeRules | undefined {
    return this.deps.keypadRulesOf === undefined ? doorCodeRulesOf(lock.family) : this.deps.keypadRulesOf(lock);
  }

  /** Sets the timer to the next instant a code must change: a service-enforced window edge, or an expiry. */
  private schedule(): void {
    if (!this.started) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const now = this.deps.clock.now();
    let next = Number.POSITIVE_INFINITY;
    try {
      for (const lockId of this.deps.doorCodes.locksWithOpenCodes()) {
        const lock = this.deps.locks.findById(lockId);
        if (lock === undefined) continue;
        for (const row of this.deps.doorCodes.listOpenByLock(lockId)) {
          const key = this.deps.ekeys.findById(row.ekeyId);
          if (key === undefined || key.status !== 'accepted' || row.state === 'removing') continue;
          const edge = row.enforcedBy === 'service' ? nextDoorCodeEdge(key, now, lock.timeZone) : key.valid_to !== null && key.valid_to > now ? key.valid_to : null;
          if (edge !== null) next = Math.min(next, edge);
        }
      }
    } catch (error) {
      this.deps.logger.error(`Door codes: could not plan the next window edge: ${describeError(error)}`);
      return;
    }
    if (!Number.isFinite(next)) return;
    // setTimeout holds at most ~24.8 days; a later edge is planned again then.
    this.timer = setTimeout(
      () => {
        void this.reevaluate('timer');
      },
      Math.min(Math.max(1, next - now), 2_000_000_000),
    );
    this.timer.unref();
  }
}

/**
 * Our code on the lock: by its id when the lock named it, else by its digits under our name — or,
 * on a keypad that keeps no names (its codes come back nameless), by its digits alone: ours were
 * drawn unique on the lock, so those digits are the write the lock never confirmed.
 */
function findOurs(row: DoorCodeRecord, onLock: readonly KeypadCode[]): KeypadCode | undefined {
  if (row.code === null) return undefined;
  const sameDigits = onLock.filter((entry) => entry.code === row.code);
  if (row.lockCodeId !== null) {
    const byId = sameDigits.find((entry) => entry.codeId === row.lockCodeId);
    if (byId !== undefined) return byId;
  }
  return sameDigits.find((entry) => entry.name === doorCodeName(row.ekeyId) || entry.name === '');
}

/** The lock holds what we would write (a keypad that keeps no names holds every code nameless). */
function sameCode(onLock: KeypadCode, wanted: KeypadCodeWrite): boolean {
  const sameName = onLock.name === wanted.name || onLock.name === '';
  return onLock.code === wanted.code && sameName && onLock.enabled === wanted.enabled && sameWindow(onLock.window, wanted.window);
}

function sameWritten(written: DoorCodeRecord['written'], desired: NonNullable<Desired>): boolean {
  return written !== null && written.enabled === desired.enabled && sameWindow(written.window, desired.window);
}

function sameWindow(a: KeypadWindow, b: KeypadWindow): boolean {
  return (
    a.allowedFrom === b.allowedFrom &&
    a.allowedUntil === b.allowedUntil &&
    a.fromTime === b.fromTime &&
    a.untilTime === b.untilTime &&
    a.weekdays.length === b.weekdays.length &&
    a.weekdays.every((day, index) => day === b.weekdays[index])
  );
}
