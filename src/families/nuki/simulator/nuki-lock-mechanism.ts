import type { BoltPosition } from '../../../domain/lock-vocabulary.js';
import { boltOfNukiLockState as boltOfReportedNukiLockState } from '../driver/nuki-state-mapping.js';
import { NukiCompletionStatus, NukiLockAction, NukiLockState, NukiTrigger } from '../protocol/nuki-commands.js';

/** The lock states a simulated Nuki goes through (no calibration, boot run or undefined state). */
export type SimulatedNukiLockState =
  | typeof NukiLockState.locked
  | typeof NukiLockState.unlocking
  | typeof NukiLockState.unlocked
  | typeof NukiLockState.locking
  | typeof NukiLockState.unlatched
  | typeof NukiLockState.unlockedLockNGo
  | typeof NukiLockState.unlatching
  | typeof NukiLockState.motorBlocked;

/** The motorised lock actions a simulated Nuki performs (fob actions 0x81..0x83 are not accepted over Bluetooth). */
export type SimulatedNukiAction =
  | typeof NukiLockAction.unlock
  | typeof NukiLockAction.lock
  | typeof NukiLockAction.unlatch
  | typeof NukiLockAction.lockNGo
  | typeof NukiLockAction.lockNGoWithUnlatch
  | typeof NukiLockAction.fullLock;

/** The most recent lock action, as Keyturner States reports it. */
export interface NukiLastLockAction {
  action: number;
  trigger: number;
  completionStatus: number;
}

/** How a motorised move ended. */
export type NukiMoveOutcome = 'success' | 'motor_blocked';

/** Why a motorised move did not start. */
export type NukiMoveRefusal = 'busy' | 'motor_blocked';

/** Lock state while moving, and when the move has completed, per action. */
const TRANSITIONS: Record<SimulatedNukiAction, { moving: SimulatedNukiLockState; final: SimulatedNukiLockState }> = {
  [NukiLockAction.unlock]: { moving: NukiLockState.unlocking, final: NukiLockState.unlocked },
  [NukiLockAction.lock]: { moving: NukiLockState.locking, final: NukiLockState.locked },
  [NukiLockAction.unlatch]: { moving: NukiLockState.unlatching, final: NukiLockState.unlatched },
  // Lock 'n' go stays "unlocked (lock 'n' go active)" until driven on (autoLock()): no timer of its own.
  [NukiLockAction.lockNGo]: { moving: NukiLockState.unlocking, final: NukiLockState.unlockedLockNGo },
  [NukiLockAction.lockNGoWithUnlatch]: { moving: NukiLockState.unlatching, final: NukiLockState.unlockedLockNGo },
  [NukiLockAction.fullLock]: { moving: NukiLockState.locking, final: NukiLockState.locked },
};

/** Whether a Lock Action byte names an action the simulated lock performs. */
export function isSimulatedNukiAction(action: number): action is SimulatedNukiAction {
  return Object.prototype.hasOwnProperty.call(TRANSITIONS, action);
}

/**
 * The bolt position of a lock state: the driver's docs/design.md §4b mapping, one table for both sides.
 * The states the simulated lock takes all map to a position, never to `unknown`.
 */
export function boltOfNukiLockState(state: SimulatedNukiLockState): BoltPosition {
  const bolt = boltOfReportedNukiLockState(state);
  return bolt === 'unknown' ? 'moving' : bolt;
}

/**
 * The motor and the bolt: one motorised move at a time, a jam that holds until a manual turn.
 * A move completes `motorTimeMs` real ms after it started (0: on the next turn of the event loop).
 */
export class NukiLockMechanism {
  private state: SimulatedNukiLockState;
  private stateTrigger: number = NukiTrigger.system;
  private last: NukiLastLockAction | null = null;
  private moving = false;
  private jamPending = false;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(
    private readonly motorTimeMs: number,
    initial: 'locked' | 'unlocked',
    /** Called after every change of lock state, trigger or last action. */
    private readonly changed: () => void,
  ) {
    this.state = initial === 'locked' ? NukiLockState.locked : NukiLockState.unlocked;
  }

  get lockState(): SimulatedNukiLockState {
    return this.state;
  }

  /** The trigger of the last state change. */
  get trigger(): number {
    return this.stateTrigger;
  }

  get lastLockAction(): NukiLastLockAction | null {
    return this.last;
  }

  get isMoving(): boolean {
    return this.moving;
  }

  idle(): Promise<void> {
    if (!this.moving) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The next motorised move ends motor blocked. */
  jamNextMove(): void {
    this.jamPending = true;
  }

  /**
   * Starts a motorised move; `settled` is called when it ends. A blocked motor does not move
   * until someone turns the lock by hand.
   */
  start(action: SimulatedNukiAction, trigger: number, settled: (outcome: NukiMoveOutcome) => void): NukiMoveRefusal | 'started' {
    if (this.moving) return 'busy';
    if (this.state === NukiLockState.motorBlocked) return 'motor_blocked';
    const transition = TRANSITIONS[action];
    this.moving = true;
    this.state = transition.moving;
    this.stateTrigger = trigger;
    this.changed();
    const settle = (): void => {
      this.moving = false;
      const blocked = this.jamPending;
      this.jamPending = false;
      this.state = blocked ? NukiLockState.motorBlocked : transition.final;
      this.last = { action, trigger, completionStatus: blocked ? NukiCompletionStatus.motorBlocked : NukiCompletionStatus.success };
      this.changed();
      settled(blocked ? 'motor_blocked' : 'success');
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
    if (this.motorTimeMs === 0) setImmediate(settle);
    else setTimeout(settle, this.motorTimeMs);
    return 'started';
  }

  /**
   * A key or the thumb-turn: no motor, always succeeds, clears a jam. Returns the action it
   * amounts to, or null when the bolt was already there (nothing changes).
   */
  manualTurn(bolt: 'locked' | 'unlocked'): typeof NukiLockAction.lock | typeof NukiLockAction.unlock | null {
    this.jamPending = false;
    if (boltOfNukiLockState(this.state) === bolt) return null;
    const action = bolt === 'locked' ? NukiLockAction.lock : NukiLockAction.unlock;
    this.state = bolt === 'locked' ? NukiLockState.locked : NukiLockState.unlocked;
    this.stateTrigger = NukiTrigger.manual;
    this.last = { action, trigger: NukiTrigger.manual, completionStatus: NukiCompletionStatus.success };
    this.changed();
    return action;
  }
}
