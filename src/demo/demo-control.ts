import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { isUuid } from '../domain/ids.js';
import { activityOfNukiLogEntry } from '../families/nuki/driver/nuki-state-mapping.js';
import { SimulatedNuki } from '../families/nuki/simulator/simulated-nuki.js';
import { SimulatedOpener } from '../families/nuki-opener/simulator/simulated-opener.js';
import { OPENER_BATTERY_OK_LEVEL, openerActivityOf } from '../families/nuki-opener/opener-variant.js';
import { CRITICAL_ONLY_BATTERY_LEVEL } from '../families/nuki/driver/nuki-state-mapping.js';
import { DEMO_GATEWAY_AUTHORIZATION } from './demo-household.js';
import type { DemoSimulatedLock } from './demo-locks.js';
import type { LockRuntime } from '../locks/lock-runtime.js';
import type { LockStateRepository } from '../store/lock-state-repository.js';
import { describeError } from '../domain/errors.js';
import type { NukiKeypadCode } from '../families/nuki/protocol/nuki-keypad-messages.js';
import { windowOfKeypadLimits } from '../families/nuki/protocol/nuki-keypad-window.js';

/** The answer's error when the lock refuses a tap because the eKey is not on its credential allow-list. */
export const CREDENTIAL_REFUSED = 'credential_refused';

/** One control line (docs/design.md §6), after validation. */
export type DemoControlCommand =
  | { op: 'tap'; lockId: string; ekeyId: string; action: 'lock' | 'unlock' }
  /** A tap on a Nuki: a phone paired with the lock (a Nuki authorization, by name) acts (docs/design.md §4b). */
  | { op: 'tap'; lockId: string; authorization: string; action: 'lock' | 'unlock' }
  | { op: 'manual'; lockId: string; bolt: 'locked' | 'unlocked' }
  | { op: 'battery'; lockId: string; level: number }
  | { op: 'jam'; lockId: string }
  | { op: 'offline'; lockId: string }
  | { op: 'online'; lockId: string }
  /** docs/design.md §4c: a code typed on the lock's Nuki Keypad; the lock judges it. */
  | { op: 'keypad'; lockId: string; code: string; action: 'lock' | 'unlock' }
  /** docs/design.md §4c: the keypad codes the lock holds, as it holds them. */
  | { op: 'keypad_codes'; lockId: string }
  /** docs/design.md §4c: a code added as the vendor's app would (the service must leave it alone). */
  | { op: 'keypad_vendor_code'; lockId: string; code: string }
  /** docs/design.md §4c: the lock's clock runs `offsetS` seconds off. */
  | { op: 'lock_clock'; lockId: string; offsetS: number }
  /** docs/design.md §4d: someone rings at the Nuki Opener's intercom. */
  | { op: 'ring'; lockId: string };

/** docs/design.md §4d: a `battery` line at or below this level sets the Opener's critical flag (all it reports). */
export const OPENER_CRITICAL_BELOW = 0.2;

/** One keypad code in a `keypad_codes` answer, as the lock holds it. */
export interface DemoKeypadCode {
  code: string;
  enabled: boolean;
  /** ISO 8601 with `Z` (the lock holds UTC), or null. */
  allowed_from: string | null;
  allowed_until: string | null;
  /** 0–6, Sunday 0; empty for every day. */
  weekdays: number[];
  /** `HH:MM` on the lock's local clock (`until_time` exclusive), or null. */
  from_time: string | null;
  until_time: string | null;
}

/** The answer to one line: `{"ok":true}` or `{"ok":false,"error":"…"}`, with the line's `id` echoed. */
export interface DemoControlAnswer {
  ok: boolean;
  error?: string;
  /** Present when the line carried an `id`. */
  id?: unknown;
  /** Present (false) only when the lock acted but the service had not observed it within the wait. */
  observed?: false;
  /** `keypad`: what the lock did with the code. */
  result?: 'unlocked' | 'locked' | 'refused';
  /** `keypad_codes`: what the lock holds. */
  codes?: DemoKeypadCode[];
}

/** Parses one line; a string is the reason it is malformed. */
export function parseControlLine(line: string): { command: DemoControlCommand; id: unknown } | { error: string; id: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { error: 'malformed line: not JSON', id: undefined };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { error: 'malformed line: expected a JSON object', id: undefined };
  }
  const fields = parsed as Record<string, unknown>;
  const id = fields.id;
  const lockId = fields.lock_id;
  const op = fields.op;
  if (typeof op !== 'string') return { error: 'missing "op"', id };
  if (typeof lockId !== 'string' || !isUuid(lockId)) return { error: '"lock_id" must be a lock id (UUID)', id };
  const lock = lockId.toLowerCase();
  switch (op) {
    case 'tap': {
      const ekeyId = fields.ekey_id;
      const authorization = fields.authorization;
      const action = fields.action;
      if (action !== 'lock' && action !== 'unlock') return { error: '"action" must be "lock" or "unlock"', id };
      if (authorization !== undefined) {
        if (ekeyId !== undefined) return { error: 'a tap names either "ekey_id" (eKey locks) or "authorization" (Nuki locks), not both', id };
        if (typeof authorization !== 'string' || authorization.trim() === '' || Buffer.byteLength(authorization) > 32) {
          return { error: '"authorization" must be the name of a Nuki authorization (1 to 32 bytes)', id };
        }
        return { command: { op, lockId: lock, authorization, action }, id };
      }
      if (typeof ekeyId !== 'string' || !isUuid(ekeyId)) return { error: '"ekey_id" must be an eKey id (UUID), or "authorization" a Nuki authorization name', id };
      return { command: { op, lockId: lock, ekeyId: ekeyId.toLowerCase(), action }, id };
    }
    case 'manual': {
      const bolt = fields.bolt;
      if (bolt !== 'locked' && bolt !== 'unlocked') return { error: '"bolt" must be "locked" or "unlocked"', id };
      return { command: { op, lockId: lock, bolt }, id };
    }
    case 'battery': {
      const level = fields.level;
      if (typeof level !== 'number' || !Number.isFinite(level) || level < 0 || level > 1) {
        return { error: '"level" must be a number from 0 to 1', id };
      }
      return { command: { op, lockId: lock, level }, id };
    }
    case 'jam':
    case 'offline':
    case 'online':
    case 'keypad_codes':
    case 'ring':
      return { command: { op, lockId: lock }, id };
    case 'keypad': {
      const code = fields.code;
      const action = fields.action;
      if (typeof code !== 'string' || !/^\d{1,12}$/.test(code)) return { error: '"code" must be the digits typed, as a string (e.g. "482913")', id };
      if (action !== 'lock' && action !== 'unlock') return { error: '"action" must be "lock" or "unlock"', id };
      return { command: { op, lockId: lock, code, action }, id };
    }
    case 'keypad_vendor_code': {
      const code = fields.code;
      if (typeof code !== 'string' || !/^\d{6}$/.test(code)) return { error: '"code" must be six digits, as a string', id };
      return { command: { op, lockId: lock, code }, id };
    }
    case 'lock_clock': {
      const offset = fields.offset_s;
      if (typeof offset !== 'number' || !Number.isInteger(offset) || Math.abs(offset) > 10 * 365 * 86_400) {
        return { error: '"offset_s" must be a whole number of seconds', id };
      }
      return { command: { op, lockId: lock, offsetS: offset }, id };
    }
    default:
      return { error: `unknown op "${op}" (expected tap, manual, battery, jam, offline, online, ring, keypad, keypad_codes, keypad_vendor_code or lock_clock)`, id };
  }
}

/** What the control needs to see whether the service has observed a lock's change. */
export interface DemoControlDependencies {
  /** Every demo lock by lower-case id. */
  locks: ReadonlyMap<string, DemoSimulatedLock>;
  runtime: Pick<LockRuntime, 'liveState' | 'on' | 'off'>;
  lockState: Pick<LockStateRepository, 'read'>;
  /**
   * Whether the lock accepts a tap by this eKey now: null when it does, else why not. A real lock
   * holds the credentials the service provisioned; revoking a key withdraws it at once (docs/design.md §3).
   * Default: every credential is accepted.
   */
  tapRefusal?: (lockId: string, ekeyId: string) => string | null;
  /**
   * Resolves once the lock's queued credential allow-list writes are done (the gateway's
   * `credentialsSettled`), so a tap right after a revocation meets the updated list. Default: at once.
   */
  credentialsSettled?: (lockId: string) => Promise<void>;
  /** How long an answer waits for the service to observe the change (default 5 000 ms). */
  observeTimeoutMs?: number;
}

/**
 * The demo's stdin control protocol (docs/design.md §6). Each line drives one simulated lock; the answer
 * comes once the lock has acted and — for a lock with a gateway connection — the service has
 * observed the result (bolt, battery, activity stored; offline/online shown), so a client that
 * reads the answer and then calls the API sees the change. Malformed lines are answered with
 * `ok: false`, never a crash.
 */
export class DemoControl {
  private readonly observeTimeoutMs: number;

  constructor(private readonly deps: DemoControlDependencies) {
    this.observeTimeoutMs = deps.observeTimeoutMs ?? 5_000;
  }

  /** Handles one line and returns its one-line answer (no newline); never rejects. */
  async handleLine(line: string): Promise<string> {
    let answer: DemoControlAnswer;
    let id: unknown;
    try {
      const parsed = parseControlLine(line);
      id = parsed.id;
      answer = 'error' in parsed ? { ok: false, error: parsed.error } : await this.execute(parsed.command);
    } catch (error) {
      answer = { ok: false, error: `internal error: ${describeError(error)}` };
    }
    if (id !== undefined) answer = { ...answer, id };
    return JSON.stringify(answer);
  }

  /**
   * Reads lines from `input` and writes one answer line per non-blank line to `output`, in
   * order. Resolves when `input` ends.
   */
  async serve(input: Readable, output: Writable): Promise<void> {
    const lines = createInterface({ input, crlfDelay: Infinity });
    for await (const line of lines) {
      if (line.trim() === '') continue;
      output.write(`${await this.handleLine(line)}\n`);
    }
  }

  private async execute(command: DemoControlCommand): Promise<DemoControlAnswer> {
    const lock = this.deps.locks.get(command.lockId);
    if (lock === undefined) return { ok: false, error: `unknown lock ${command.lockId}` };
    await lock.idle();
    if (lock instanceof SimulatedOpener) return this.executeOnOpener(command, lock);
    if (command.op === 'ring') return { ok: false, error: 'only a Nuki Opener rings (this lock has no intercom)' };
    let result: DemoControlAnswer['result'];
    switch (command.op) {
      case 'keypad':
      case 'keypad_codes':
      case 'keypad_vendor_code': {
        if (!(lock instanceof SimulatedNuki) || !lock.hasKeypad) return { ok: false, error: 'this lock has no keypad' };
        if (command.op === 'keypad_codes') return { ok: true, codes: lock.keypadCodes().map(demoKeypadCode) };
        if (command.op === 'keypad_vendor_code') {
          try {
            lock.addVendorCode(command.code);
          } catch (error) {
            return { ok: false, error: describeError(error) };
          }
          return { ok: true };
        }
        if (lock.bolt === 'jammed') return { ok: false, error: 'the bolt is jammed; turn it by hand first ("manual")' };
        // The lock judges the code against the codes it stores, on its own clock. A refused code
        // is in its log too (a `keypad_refused` event): answered once the service has read it.
        result = lock.typeCode(command.code, command.action) === 'refused' ? 'refused' : command.action === 'lock' ? 'locked' : 'unlocked';
        break;
      }
      case 'lock_clock':
        if (!(lock instanceof SimulatedNuki)) return { ok: false, error: 'only a Nuki keeps a clock of its own here' };
        lock.setClockOffset(command.offsetS);
        return { ok: true };
      case 'tap': {
        if ('authorization' in command) {
          if (!(lock instanceof SimulatedNuki)) return { ok: false, error: 'this lock is not a Nuki: its taps name an "ekey_id"' };
          if (command.authorization === DEMO_GATEWAY_AUTHORIZATION) {
            return { ok: false, error: `"${DEMO_GATEWAY_AUTHORIZATION}" is the gateway's own authorization: send a command (POST /locks/{id}/commands) instead` };
          }
          if (lock.bolt === 'jammed') return { ok: false, error: 'the bolt is jammed; turn it by hand first ("manual")' };
          // docs/design.md §4b: any name other than the linked one is an unlinked authorization, so a
          // name the lock does not know yet is a phone paired with it in the Nuki app (docs/commands.md).
          try {
            lock.addAuthorization(command.authorization);
          } catch (error) {
            return { ok: false, error: `the lock cannot add the authorization "${command.authorization}": ${describeError(error)}` };
          }
          lock.tap(command.authorization, command.action);
          break;
        }
        if (lock instanceof SimulatedNuki) return { ok: false, error: 'this lock is a Nuki: its taps name an "authorization" (e.g. "Olivia\'s iPhone")' };
        const refusal = this.deps.tapRefusal?.(command.lockId, command.ekeyId) ?? null;
        if (refusal !== null) return { ok: false, error: `${CREDENTIAL_REFUSED}: the lock refuses this eKey (${refusal})` };
        if (lock.bolt === 'jammed') return { ok: false, error: 'the bolt is jammed; turn it by hand first ("manual")' };
        // An eKey change pushes the allow-list at once; wait for that write so the answer is deterministic.
        await this.deps.credentialsSettled?.(command.lockId);
        if (!lock.inRange) {
          // Out of range the lock still works for the person at the door (with its last allow-list);
          // the gateway reads it back later.
          if (lock.tap(command.ekeyId, command.action) === 'refused') return { ok: false, error: `${CREDENTIAL_REFUSED}: the lock refuses this eKey` };
          await lock.idle();
          return { ok: true };
        }
        // The lock itself checks the credential against the allow-list the gateway keeps in sync.
        if (lock.tap(command.ekeyId, command.action) === 'refused') return { ok: false, error: `${CREDENTIAL_REFUSED}: the lock refuses this eKey` };
        break;
      }
      case 'manual':
        lock.manualTurn(command.bolt);
        break;
      case 'battery':
        lock.setBattery(command.level * 100);
        break;
      case 'jam':
        lock.jamNextMove();
        return { ok: true };
      case 'offline':
        lock.goOutOfRange();
        break;
      case 'online':
        lock.comeBackInRange();
        break;
    }
    await lock.idle();
    const observed = await this.waitUntilObserved(command.lockId, lock);
    const answer: DemoControlAnswer = observed ? { ok: true } : { ok: true, observed: false };
    return result === undefined ? answer : { ...answer, result };
  }

  /**
   * A line for Building Door, the demo's Nuki Opener (docs/design.md §4d): `ring` rings its
   * intercom (the answer comes once the service has the ring, and the opening its mode made);
   * `battery` sets its critical flag; `offline`/`online` as for every lock. It has no bolt to
   * turn, jam or tap.
   */
  private async executeOnOpener(command: DemoControlCommand, lock: SimulatedOpener): Promise<DemoControlAnswer> {
    switch (command.op) {
      case 'ring':
        await lock.ring();
        break;
      case 'battery':
        lock.setBatteryCritical(command.level <= OPENER_CRITICAL_BELOW);
        break;
      case 'offline':
        lock.goOutOfRange();
        break;
      case 'online':
        lock.comeBackInRange();
        break;
      case 'tap':
        return { ok: false, error: 'a Nuki Opener has no taps: ring it ("ring") or open it with a command (POST /locks/{id}/commands)' };
      case 'manual':
      case 'jam':
        return { ok: false, error: 'a Nuki Opener has no bolt to turn or jam: ring it ("ring")' };
      case 'keypad':
      case 'keypad_codes':
      case 'keypad_vendor_code':
        return { ok: false, error: 'this lock has no keypad' };
      case 'lock_clock':
        return { ok: false, error: 'only a Nuki Smart Lock keeps a clock of its own here' };
    }
    await lock.settled();
    const observed = await this.waitUntilObserved(command.lockId, lock);
    return observed ? { ok: true } : { ok: true, observed: false };
  }

  /** Whether the service's view of the lock matches the simulated lock. */
  private isObserved(lockId: string, lock: DemoSimulatedLock): boolean {
    const snapshot = this.deps.runtime.liveState(lockId)?.snapshot;
    // A lock without a gateway connection: nothing observes it, the lock having acted is enough.
    if (snapshot === undefined) return true;
    if (!lock.inRange) return !snapshot.online;
    if (lock instanceof SimulatedOpener) {
      // Connected only on demand, like a Nuki: observed once its news (a ring, its log) has been read.
      if (!snapshot.online || lock.newStateFlagged || snapshot.moving || snapshot.bolt !== lock.bolt) return false;
      if (snapshot.batteryLevel !== (lock.batteryCritical ? CRITICAL_ONLY_BATTERY_LEVEL : OPENER_BATTERY_OK_LEVEL)) return false;
      const stored = this.deps.lockState.read(lockId)?.lastActivitySequence ?? 0;
      const news = lock.log.filter((entry) => openerActivityOf(entry, -1, 0) !== null);
      return stored >= (news.at(-1)?.index ?? 0);
    }
    if (snapshot.moving || lock.isMoving) return false;
    if (snapshot.bolt !== lock.bolt) return false;
    const stored = this.deps.lockState.read(lockId)?.lastActivitySequence ?? 0;
    if (lock instanceof SimulatedNuki) {
      // A Nuki is connected only on demand; it is observed once its news has been read. Its
      // battery byte carries the percentage in steps of 2.
      if (!snapshot.online || lock.newStateFlagged) return false;
      if (snapshot.batteryLevel === null || Math.abs(snapshot.batteryLevel - lock.batteryPercent / 100) > 0.02) return false;
      const moves = lock.log.filter((entry) => activityOfNukiLogEntry(entry, -1, 0) !== null);
      return stored >= (moves.at(-1)?.index ?? 0);
    }
    if (!snapshot.connected) return false;
    if (snapshot.batteryLevel !== lock.batteryPercent / 100) return false;
    return stored >= (lock.activity.at(-1)?.sequence ?? 0);
  }

  private waitUntilObserved(lockId: string, lock: DemoSimulatedLock): Promise<boolean> {
    if (this.isObserved(lockId, lock)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.isObserved(lockId, lock)) finish(true);
      };
      // Changes arrive as runtime events; reachability also changes with time, so poll as well.
      const poll = setInterval(check, 25);
      const deadline = setTimeout(() => {
        finish(false);
      }, this.observeTimeoutMs);
      let done = false;
      const finish = (observed: boolean): void => {
        if (done) return;
        done = true;
        clearInterval(poll);
        clearTimeout(deadline);
        this.deps.runtime.off('change', check);
        resolve(observed);
      };
      this.deps.runtime.on('change', check);
    });
  }
}

/** A keypad code as the `keypad_codes` answer shows it (docs/design.md §4c). */
function demoKeypadCode(code: NukiKeypadCode): DemoKeypadCode {
  const window = windowOfKeypadLimits(code.limits);
  return {
    code: String(code.code),
    enabled: code.enabled,
    allowed_from: window.allowedFrom === null ? null : new Date(window.allowedFrom).toISOString(),
    allowed_until: window.allowedUntil === null ? null : new Date(window.allowedUntil).toISOString(),
    weekdays: window.weekdays,
    from_time: window.fromTime,
    until_time: window.untilTime,
  };
}
