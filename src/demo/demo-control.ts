import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { isUuid } from '../domain/ids.js';
import { CREDENTIAL_REFUSED, type DemoDevice, type DemoKeypadCode, type DemoOperation } from '../families/lock-family-module.js';
import type { LockRuntime } from '../locks/lock-runtime.js';
import { describeError } from '../domain/errors.js';

export { CREDENTIAL_REFUSED };
export type { DemoKeypadCode };

/** One control line (docs/design.md §6), after validation: an operation on one lock, or its radio range. */
export type DemoControlCommand = OnLock<DemoOperation | { op: 'offline' } | { op: 'online' }>;

/** Each operation with the lock it is for (distributed, so `op` still tells them apart). */
type OnLock<T> = T extends unknown ? T & { lockId: string } : never;

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

/** What the control needs: the demo's locks, and the lock runtime that observes them. */
export interface DemoControlDependencies {
  /** Every demo lock by lower-case id. */
  locks: ReadonlyMap<string, DemoDevice>;
  runtime: Pick<LockRuntime, 'liveState' | 'synchronise' | 'untilOffline'>;
  /** The gateway's own name in a lock's user list (a tap naming it is refused). */
  gatewayUser?: string;
  /**
   * For a lock the gateway never reaches: why the lock refuses a tap by this eKey now, or null
   * (docs/design.md §3: taps are checked when they happen). Default: every credential is accepted.
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
 * The demo's stdin control protocol (docs/design.md §6). Each line drives one simulated lock: its
 * family's demo lock runs the operation (src/families/lock-family-module.ts `DemoDevice`), and the
 * answer comes once the lock has acted and — for a lock with a gateway connection — the service
 * has observed the result: the gateway has read the lock again and says it is synchronised (bolt,
 * battery, activity stored), or shows it offline. So a client that reads the answer and then calls
 * the API sees the change. Malformed lines are answered with `ok: false`, never a crash.
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
    const { lockId } = command;
    const lock = this.deps.locks.get(lockId);
    if (lock === undefined) return { ok: false, error: `unknown lock ${lockId}` };
    await lock.idle();
    if (command.op === 'offline' || command.op === 'online') {
      if (command.op === 'offline') lock.goOutOfRange();
      else lock.comeBackInRange();
      return this.observed(lockId, lock, { ok: true });
    }
    const done = await lock.operate(command, {
      tapRefusal: (ekeyId) => this.deps.tapRefusal?.(lockId, ekeyId) ?? null,
      credentialsSettled: () => this.deps.credentialsSettled?.(lockId) ?? Promise.resolve(),
      gatewayUser: this.deps.gatewayUser ?? 'ekey-locks',
    });
    if (!done.ok) return { ok: false, error: done.error };
    const answer: DemoControlAnswer = { ok: true, ...(done.result === undefined ? {} : { result: done.result }), ...(done.codes === undefined ? {} : { codes: done.codes }) };
    if (!done.observe) return answer;
    await lock.idle();
    return this.observed(lockId, lock, answer);
  }

  /**
   * `answer`, once the service has observed the lock: nothing to observe for a lock without a
   * gateway connection; a lock out of range once the service shows it offline; any other once the
   * gateway has read it again and stored what it read (the runtime's `synchronise`). With
   * `observed: false` when that did not happen within the wait.
   */
  private async observed(lockId: string, lock: DemoDevice, answer: DemoControlAnswer): Promise<DemoControlAnswer> {
    if (this.deps.runtime.liveState(lockId)?.snapshot === undefined) return answer;
    const seen = lock.inRange ? await this.deps.runtime.synchronise(lockId, this.observeTimeoutMs) : await this.deps.runtime.untilOffline(lockId, this.observeTimeoutMs);
    return seen ? answer : { ...answer, observed: false };
  }
}
