/**
 * Keeps a Nuki Opener's modes in the hands of those allowed to hold them (docs/design.md §4d;
 * issue #32, finding 2). Ring to Open and Continuous Mode make the building door open on a ring
 * without anyone at home deciding it; a mode switched on by someone whose key then ended would
 * outlive that key on the Opener itself. So the service remembers who switched each mode on (a
 * completed `*_on` command) and switches the mode off when:
 * - that person's key no longer makes them an owner or admin of the lock — revoked or downgraded
 *   (the eKey change notifier, at once), expired (a timer at the key's end; owner and admin keys
 *   carry no schedule, so their end is their `valid_to`);
 * - Continuous Mode ran past the owner's cap (`continuous_limit_minutes`; a timer at its end).
 * The switch-off is owed until the Opener confirms it: persisted (`opener_modes.switching_off`),
 * retried at the Opener's next connect or advertisement and every {@link DEFAULT_RETRY_MS}, and
 * taken up again after a restart. What the Opener reports wins: a mode switched off elsewhere ends the debt.
 *
 * The switch-off goes to the gateway directly (which runs one command per lock at a time), not
 * through the command engine: nobody requested it, and it must not wait for anyone's key or rate.
 * It is recorded as a `lock` event with the mode and no performer (source `service`), so the
 * lock's owners and admins see it in the history.
 */
import type { Clock } from '../domain/clock.js';
import type { EKeyRole } from '../domain/ekey-permissions.js';
import { describeError } from '../domain/errors.js';
import { eventShapeOfCommand, type LockCommandType, type OpenerMode } from '../domain/lock-command-type.js';
import type { OpenerModes } from '../domain/lock-vocabulary.js';
import type { LockRuntimeChange } from '../locks/lock-runtime.js';
import { continuousModeEndsAt, modeSwitchedOnBy, openerModeName, switchOffCommand, switchOffDue, type OpenerModeName, type SwitchOffReason } from '../domain/opener-mode.js';
import type { CommandOutcome } from '../gateway/command-outcome.js';
import type { Logger } from '../logger.js';
import type { CommandRecord } from '../store/command-repository.js';
import type { OpenerModeRecord, OpenerModeRepository } from '../store/opener-mode-repository.js';

/** How often an owed switch-off is tried again while the Opener does not confirm it. */
export const DEFAULT_RETRY_MS = 30_000;

/** A change of the lock runtime: the guard listens to `modes` and `connectivity`. */
type ObservedChange = LockRuntimeChange;

export interface OpenerModeGuardDependencies {
  modes: OpenerModeRepository;
  /** The user's role on the lock at an instant (the eKey service's answer). */
  roles: { roleOn(userId: string, lockId: string, atMs: number): EKeyRole | null };
  /** When the user's live key on the lock ends (`valid_to`), null when it does not. */
  keyEnd: (userId: string, lockId: string) => number | null;
  /** The eKey change notifier: a revoked or downgraded setter is seen at once. */
  changes: { onChange(listener: (lockId: string) => void): () => void };
  /** What the Opener reports (its modes, its reachability) and where a switch-off goes. */
  runtime: {
    on(event: 'change', listener: (change: ObservedChange) => void): unknown;
    off(event: 'change', listener: (change: ObservedChange) => void): unknown;
    isReachable(lockId: string): boolean;
    sendCommand(lockId: string, type: LockCommandType): Promise<CommandOutcome>;
  };
  /**
   * The gateway's signs that a lock is near: a connect (`synchronised`) or an advertisement. A
   * switch-off still owed is tried again at each (an on-demand Opener is reachable exactly then).
   */
  gateway: {
    on(event: 'synchronised' | 'advertised', listener: (event: { lockId: string }) => void): unknown;
    off(event: 'synchronised' | 'advertised', listener: (event: { lockId: string }) => void): unknown;
  };
  /** Every state change of a command: a completed `*_on` names who switched a mode on. */
  engine: {
    on(event: 'command', listener: (command: CommandRecord) => void): unknown;
    off(event: 'command', listener: (command: CommandRecord) => void): unknown;
  };
  /** Records the switch-off as an event (a `lock` with the mode, no performer). */
  events: { recordModeSwitchedOff(input: { lockId: string; mode: OpenerMode; timestamp: number }): unknown };
  clock: Clock;
  logger: Logger;
  retryMs?: number;
}

const REASON_WORDS: Readonly<Record<SwitchOffReason, string>> = {
  key_ended: 'the eKey of the person who switched it on no longer allows it',
  time_limit: "it reached the owner's time limit",
};

const MODE_WORDS: Readonly<Record<Exclude<OpenerModeName, 'none'>, string>> = { ring_to_open: 'Ring to Open', continuous: 'Continuous Mode' };

export class OpenerModeGuard {
  private readonly retryMs: number;
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private started = false;
  private readonly onChange = (change: ObservedChange): void => {
    this.guard(change.lockId, () => {
      if (change.kind === 'modes') this.observeModes(change.lockId, change.modes);
      // Back in reach: a switch-off still owed goes now.
      else if (change.kind === 'connectivity' && change.online) this.evaluate(change.lockId);
    });
  };
  private readonly onNear = (event: { lockId: string }): void => {
    if (this.inFlight.has(event.lockId)) return;
    this.guard(event.lockId, () => {
      if (this.deps.modes.read(event.lockId, this.deps.clock.now()).switchingOff !== null) this.attempt(event.lockId);
    });
  };
  private readonly onCommand = (command: CommandRecord): void => {
    if (command.status !== 'completed') return;
    this.guard(command.lockId, () => {
      this.observeCommand(command);
    });
  };

  constructor(private readonly deps: OpenerModeGuardDependencies) {
    this.retryMs = deps.retryMs ?? DEFAULT_RETRY_MS;
  }

  /** Listens, and takes up every switch-off still owed (after a restart too). Idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.deps.runtime.on('change', this.onChange);
    this.deps.gateway.on('synchronised', this.onNear);
    this.deps.gateway.on('advertised', this.onNear);
    this.deps.engine.on('command', this.onCommand);
    this.unsubscribe = this.deps.changes.onChange((lockId) => {
      this.guard(lockId, () => {
        this.evaluate(lockId);
      });
      // A key's end may have moved (a new valid_to): plan the timer again.
      this.schedule();
    });
    void this.reevaluate();
  }

  stop(): void {
    this.started = false;
    this.deps.runtime.off('change', this.onChange);
    this.deps.gateway.off('synchronised', this.onNear);
    this.deps.gateway.off('advertised', this.onNear);
    this.deps.engine.off('command', this.onCommand);
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Looks at every Opener at the clock's now: setters whose key ended, caps that ran out, switch-offs
   * still owed. The timer calls it; tests with a manual clock may too. Resolves when the switch-offs
   * it started are done; never rejects.
   */
  async reevaluate(): Promise<void> {
    if (!this.started) return;
    let rows: OpenerModeRecord[];
    try {
      rows = this.deps.modes.list();
    } catch (error) {
      this.deps.logger.error(`Opener modes: could not read them: ${describeError(error)}`);
      return;
    }
    for (const row of rows) {
      this.guard(row.lockId, () => {
        this.evaluate(row.lockId);
      });
    }
    await this.settled();
    this.schedule();
  }

  /** Looks at one Opener again (its owner changed the cap): a switch-off may be due now, or later. */
  reconsider(lockId: string): void {
    if (!this.started) return;
    this.guard(lockId, () => {
      this.evaluate(lockId);
    });
    this.schedule();
  }

  /** Resolves once no switch-off is on its way to an Opener. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight.values()]);
  }

  /** The Opener reported its modes (every state read): the truth about what is on. */
  private observeModes(lockId: string, modes: OpenerModes): void {
    const now = this.deps.clock.now();
    const row = this.deps.modes.read(lockId, now);
    const mode = openerModeName(modes);
    if (mode === row.mode) {
      this.evaluate(lockId);
      return;
    }
    // Off: nothing is owed any more. Another mode on: switched on elsewhere until a command of ours says who.
    this.deps.modes.save(
      mode === 'none'
        ? { ...row, mode, setBy: null, onSince: null, switchingOff: null, updatedAt: now }
        : { ...row, mode, setBy: null, onSince: now, switchingOff: null, updatedAt: now },
    );
    this.evaluate(lockId);
    // A Continuous Mode switched on anywhere runs against the owner's cap from now.
    this.schedule();
  }

  /** A completed command of ours that switched a mode on names who did it. */
  private observeCommand(command: CommandRecord): void {
    const mode = modeSwitchedOnBy(command.type);
    if (mode === null) return;
    const now = this.deps.clock.now();
    const row = this.deps.modes.read(command.lockId, now);
    const onSince = row.mode === mode && row.onSince !== null ? row.onSince : now;
    this.deps.modes.save({ ...row, mode, setBy: command.requestedBy, onSince, switchingOff: null, updatedAt: now });
    this.evaluate(command.lockId);
    this.schedule();
  }

  /** Whether the lock's mode must go off now; if so (or still owed), tries. */
  private evaluate(lockId: string): void {
    const now = this.deps.clock.now();
    const row = this.deps.modes.read(lockId, now);
    if (row.mode === 'none') return;
    const setterRole = row.setBy === null ? null : this.deps.roles.roleOn(row.setBy, lockId, now);
    const due = switchOffDue(row, setterRole, now);
    if (due !== null && row.switchingOff === null) {
      this.deps.modes.save({ ...row, switchingOff: due, updatedAt: now });
      this.deps.logger.info(`Opener ${lockId}: switching ${MODE_WORDS[row.mode]} off: ${REASON_WORDS[due]}.`);
    }
    if (due !== null || row.switchingOff !== null) this.attempt(lockId);
  }

  /** Sends the switch-off (one at a time per Opener); a failure waits for the next chance. */
  private attempt(lockId: string): void {
    if (this.inFlight.has(lockId) || !this.started) return;
    if (!this.deps.runtime.isReachable(lockId)) {
      this.schedule();
      return;
    }
    const row = this.deps.modes.read(lockId, this.deps.clock.now());
    if (row.mode === 'none') return;
    const command = switchOffCommand(row.mode);
    const run = this.deps.runtime
      .sendCommand(lockId, command)
      .then((outcome) => {
        // Stopped meanwhile (the service closes its store next): the Opener's next report tells.
        if (!this.started) return;
        this.guard(lockId, () => {
          this.finish(lockId, command, outcome);
        });
      })
      .catch((error: unknown) => {
        this.deps.logger.error(`Opener ${lockId}: the switch-off failed unexpectedly: ${describeError(error)}`);
      })
      .finally(() => {
        this.inFlight.delete(lockId);
        this.schedule();
      });
    this.inFlight.set(lockId, run);
  }

  private finish(lockId: string, command: LockCommandType, outcome: CommandOutcome): void {
    const now = this.deps.clock.now();
    if (outcome.status !== 'completed') {
      this.deps.logger.warn(`Opener ${lockId}: the mode could not be switched off yet (${outcome.reason}); it is tried again.`);
      return;
    }
    const row = this.deps.modes.read(lockId, now);
    const mode = eventShapeOfCommand(command).mode;
    if (mode !== undefined) this.deps.events.recordModeSwitchedOff({ lockId, mode, timestamp: now });
    // The Opener confirmed the mode off; its next report says whether another one is still on.
    const left: OpenerModeName = row.mode === 'continuous' && command === 'continuous_mode_off' ? 'none' : row.mode === 'ring_to_open' && command === 'ring_to_open_off' ? 'none' : row.mode;
    this.deps.modes.save(left === 'none' ? { ...row, mode: 'none', setBy: null, onSince: null, switchingOff: null, updatedAt: now } : { ...row, switchingOff: null, updatedAt: now });
    this.deps.logger.info(`Opener ${lockId}: the service switched the mode off; the Opener confirmed.`);
  }

  /** The timer: the next key end or cap among the Openers, or a retry while a switch-off is owed. */
  private schedule(): void {
    if (!this.started) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const now = this.deps.clock.now();
    let next = Number.POSITIVE_INFINITY;
    try {
      for (const row of this.deps.modes.list()) {
        if (row.mode === 'none') continue;
        if (row.switchingOff !== null) next = Math.min(next, now + this.retryMs);
        const capEnd = continuousModeEndsAt(row);
        if (capEnd !== null) next = Math.min(next, capEnd);
        const keyEnd = row.setBy === null ? null : this.deps.keyEnd(row.setBy, row.lockId);
        if (keyEnd !== null && keyEnd > now) next = Math.min(next, keyEnd);
      }
    } catch (error) {
      this.deps.logger.error(`Opener modes: could not plan the next check: ${describeError(error)}`);
      return;
    }
    if (!Number.isFinite(next)) return;
    // setTimeout holds at most ~24.8 days; a later end is planned again then.
    this.timer = setTimeout(
      () => {
        void this.reevaluate();
      },
      Math.min(Math.max(1, next - now), 2_000_000_000),
    );
    this.timer.unref();
  }

  /** A store fault is logged for the lock; it never escapes into the runtime or the engine. */
  private guard(lockId: string, work: () => void): void {
    try {
      work();
    } catch (error) {
      this.deps.logger.error(`Opener ${lockId}: could not keep its mode: ${describeError(error)}`);
    }
  }
}
