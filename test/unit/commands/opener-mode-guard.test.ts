import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { OpenerModeGuard } from '../../../src/commands/opener-mode-guard.js';
import type { CommandOutcome } from '../../../src/gateway/command-outcome.js';
import type { LockCommandType, OpenerMode } from '../../../src/domain/lock-command-type.js';
import { OpenerModeRepository } from '../../../src/store/opener-mode-repository.js';
import { until } from '../../support/polling.js';
import { createWorld, type World } from './command-world.js';

/**
 * The Opener mode guard after a restart (issue #32, finding 2; docs/design.md §4d): a switch-off
 * owed when the service stopped is in the store (`opener_modes.switching_off`), and a new guard
 * over that store takes it up — at once when the Opener is in reach, else at its next connect —
 * and records it once the Opener confirms. The integration suite (security/opener-modes) drives
 * the same guard through the demo's Opener; a restarted demo Opener forgets its mode, so the
 * restart is held here, over the real store and a runtime that reports as the real one does.
 */

/** The lock runtime as the guard sees it: reachability, changes, and the switch-offs it is sent. */
class OpenerRuntime extends EventEmitter {
  reachable = false;
  readonly sent: { lockId: string; type: LockCommandType; answer: (outcome: CommandOutcome) => void }[] = [];
  isReachable(): boolean {
    return this.reachable;
  }
  sendCommand(lockId: string, type: LockCommandType): Promise<CommandOutcome> {
    return new Promise((answer) => this.sent.push({ lockId, type, answer }));
  }
}

describe('the Opener mode guard, started over a store that owes a switch-off', () => {
  let w: World;
  let modes: OpenerModeRepository;
  let runtime: OpenerRuntime;
  let guard: OpenerModeGuard;
  const recorded: { lockId: string; mode: OpenerMode }[] = [];

  const startGuard = (): void => {
    guard = new OpenerModeGuard({
      modes,
      roles: { roleOn: () => null },
      keyEnd: () => null,
      changes: { onChange: () => () => undefined },
      runtime,
      gateway: new EventEmitter(),
      engine: new EventEmitter(),
      events: { recordModeSwitchedOff: (input) => recorded.push({ lockId: input.lockId, mode: input.mode }) },
      clock: w.clock,
      logger: w.logger,
      retryMs: 60_000,
    });
    guard.start();
  };

  beforeEach(() => {
    w = createWorld();
    modes = new OpenerModeRepository(w.db);
    runtime = new OpenerRuntime();
    recorded.length = 0;
    // What the service stored before it stopped: Continuous Mode on, its setter's key ended, the Opener out of reach.
    modes.save({ lockId: w.lock, mode: 'continuous', setBy: w.guest, onSince: w.clock.now() - 60_000, switchingOff: 'key_ended', continuousLimitMinutes: null, updatedAt: w.clock.now() });
  });

  afterEach(() => {
    guard.stop();
    w.db.close();
  });

  it('sends the switch-off at the Opener\'s first connect after the restart, and clears the debt once it confirms', async () => {
    startGuard();
    await guard.settled();
    // Out of reach: nothing is sent, and the debt stays stored.
    expect(runtime.sent).toEqual([]);
    expect(modes.read(w.lock, w.clock.now()).switchingOff).toBe('key_ended');

    runtime.reachable = true;
    runtime.emit('change', { kind: 'connectivity', lockId: w.lock, online: true });
    await until(() => runtime.sent.length === 1);
    expect(runtime.sent.map(({ lockId, type }) => ({ lockId, type }))).toEqual([{ lockId: w.lock, type: 'continuous_mode_off' }]);
    runtime.sent[0]?.answer({ status: 'completed', bolt: 'locked' });
    await guard.settled();
    expect(modes.read(w.lock, w.clock.now())).toMatchObject({ mode: 'none', setBy: null, switchingOff: null });
    expect(recorded).toEqual([{ lockId: w.lock, mode: 'continuous_mode' }]);
  });

  it('sends it at start when the Opener is already in reach; a refusal keeps the debt for the next chance', async () => {
    runtime.reachable = true;
    startGuard();
    await until(() => runtime.sent.length === 1);
    runtime.sent[0]?.answer({ status: 'failed', reason: 'lock_offline' });
    await guard.settled();
    expect(modes.read(w.lock, w.clock.now())).toMatchObject({ mode: 'continuous', switchingOff: 'key_ended' });
    expect(recorded).toEqual([]);
    // The next sign of the Opener (back in reach) tries again.
    runtime.emit('change', { kind: 'connectivity', lockId: w.lock, online: true });
    await until(() => runtime.sent.length === 2);
    runtime.sent[1]?.answer({ status: 'completed', bolt: 'locked' });
    await guard.settled();
    expect(modes.read(w.lock, w.clock.now()).switchingOff).toBeNull();
  });
});
