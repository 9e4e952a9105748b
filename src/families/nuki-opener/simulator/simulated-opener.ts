import type { Clock } from '../../../domain/clock.js';
import { NukiCompletionStatus } from '../../nuki/protocol/nuki-commands.js';
import type { NukiKeyPair } from '../../nuki/protocol/nuki-crypto.js';
import { encodeKeyturnerStates } from '../../nuki/protocol/nuki-messages.js';
import type { NukiAuthorization } from '../../nuki/simulator/nuki-authorization-table.js';
import { NukiKeyturnerResponder } from '../../nuki/simulator/nuki-keyturner-responder.js';
import { NukiPairingResponder } from '../../nuki/simulator/nuki-pairing-responder.js';
import { configPayload } from '../../nuki/simulator/nuki-status-payloads.js';
import { SimulatedNukiDevice, type NukiLinkPairingContext } from '../../nuki/simulator/simulated-nuki-device.js';
import type { SimulatedGattService } from '../../../gateway/transports/simulator/simulated-device.js';
import { NukiFamilyUuids } from '../../nuki/nuki-api-level.js';
import {
  OpenerLockAction,
  OpenerLockState,
  OpenerLogEntryType,
  OpenerState,
  OpenerTrigger,
  encodeDoorbellRecognition,
  type OpenerRingMode,
} from '../protocol/opener-protocol.js';

const WRITE_INDICATE = ['write', 'indicate'] as const;

/** The GATT database of a Nuki Opener: its pairing service and its keyturner service. */
export const OPENER_GATT_DATABASE: readonly SimulatedGattService[] = [
  { uuid: NukiFamilyUuids.openerPairingService, characteristics: [{ uuid: NukiFamilyUuids.openerPairingGdio, flags: WRITE_INDICATE }] },
  {
    uuid: NukiFamilyUuids.openerKeyturnerService,
    characteristics: [
      { uuid: NukiFamilyUuids.openerKeyturnerGdio, flags: WRITE_INDICATE },
      { uuid: NukiFamilyUuids.openerKeyturnerUsdio, flags: WRITE_INDICATE },
    ],
  },
];

/** An authorization the simulated Opener starts with. */
export interface SimulatedOpenerAuthorization {
  id: number;
  name: string;
  /** The key shared with it (only a paired gateway's frames are accepted). */
  sharedKey?: Buffer;
}

/** How to build a simulated Opener. */
export interface SimulatedOpenerOptions {
  address: string;
  name: string;
  clock: Clock;
  securityPin: number;
  nukiId?: number;
  authorizations?: readonly SimulatedOpenerAuthorization[];
  /** How long the electric strike takes, real ms (0: the next turn of the event loop). */
  strikeTimeMs?: number;
  /** First log index (a restarted demo continues its numbering). */
  firstLogIndex?: number;
  /** Battery critical at start. */
  batteryCritical?: boolean;
  /** Fragment size of indications (default 20). */
  fragmentSize?: number;
  keyPair?: NukiKeyPair;
}

/**
 * The Nuki Opener's side of the Bluetooth API, in memory (docs/design.md §4d, docs/nuki.md
 * "Opener"): pairing, the encrypted keyturner channel, Lock Actions 0x01–0x05 (Ring to Open,
 * electric strike, Continuous Mode), Keyturner States with the Opener's states, a log with
 * Doorbell Recognition entries, and its iBeacon with the new-state flag. It changes only when
 * driven. Rules:
 * - a ring logs a Doorbell Recognition entry with the mode it met; under Ring to Open or
 *   Continuous Mode the strike opens (a lock-action entry, trigger automatic); Ring to Open then
 *   ends (the real Opener's default), Continuous Mode stays;
 * - the strike is reported `opening` while it runs and the Opener is back to its mode after;
 * - the battery is only a critical flag.
 */
export class SimulatedOpener extends SimulatedNukiDevice {
  readonly gattDatabase = OPENER_GATT_DATABASE;

  protected readonly keyturner: NukiKeyturnerResponder;
  private readonly strikeTimeMs: number;
  private readonly idleWaiters: (() => void)[] = [];
  private ringToOpenActive = false;
  private continuousModeActive = false;
  private strikeRunning = false;
  private stateTrigger: number = OpenerTrigger.system;
  private last: { action: number; trigger: number; completionStatus: number } | null = null;
  private critical: boolean;

  constructor(options: SimulatedOpenerOptions) {
    super({
      address: options.address,
      name: options.name,
      clock: options.clock,
      nukiId: options.nukiId,
      lockUuidSeed: 'simulated-opener',
      keyPair: options.keyPair,
      fragmentSize: options.fragmentSize ?? 20,
      maxAuthorizations: 100,
      authorizations: (options.authorizations ?? []).map((entry) => ({ id: entry.id, name: entry.name, type: 'app', sharedKey: entry.sharedKey ?? null, appId: 0 })),
      logCapacity: 500,
      firstLogIndex: options.firstLogIndex ?? 1,
      pairingTimeoutMs: 30_000,
      characteristics: {
        pairingGdio: NukiFamilyUuids.openerPairingGdio,
        keyturnerGdio: NukiFamilyUuids.openerKeyturnerGdio,
        keyturnerUsdio: NukiFamilyUuids.openerKeyturnerUsdio,
      },
    });
    this.strikeTimeMs = options.strikeTimeMs ?? 0;
    this.critical = options.batteryCritical ?? false;
    this.keyturner = new NukiKeyturnerResponder({
      ...this.keyturnerContext(),
      securityPin: options.securityPin,
      hasDoorSensor: false,
      usdio: NukiFamilyUuids.openerKeyturnerUsdio,
      isAction: (action) => action >= OpenerLockAction.activateRingToOpen && action <= OpenerLockAction.deactivateContinuousMode,
      keyturnerStates: () => this.keyturnerStatesPayload(),
      config: () =>
        configPayload({ nukiId: this.nukiId, name: this.name, firmware: [1, 10, 2], hardware: [3, 0] }, this.clock.now(), { fob: false, keypad: false }),
      batteryReport: () => Buffer.alloc(0),
      remoteAction: (action, authorization, nameSuffix, settled) => this.remoteAction(action, authorization, nameSuffix, settled),
    });
  }

  /** `locked` / `unlocked` as docs/design.md §4d maps the Opener. */
  get bolt(): 'locked' | 'unlocked' {
    return this.ringToOpenActive || this.continuousModeActive || this.strikeRunning ? 'unlocked' : 'locked';
  }

  get ringToOpen(): boolean {
    return this.ringToOpenActive;
  }

  get continuousMode(): boolean {
    return this.continuousModeActive;
  }

  /** The battery's critical flag, all the Opener reports of its battery. */
  get batteryCritical(): boolean {
    return this.critical;
  }

  /** Resolves when the strike is not running. */
  idle(): Promise<void> {
    if (!this.strikeRunning) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Someone rings at the intercom: a Doorbell Recognition entry; with Ring to Open or Continuous
   * Mode the strike opens (and Ring to Open ends). Resolves once the ring (and an opening) is
   * logged. Returns whether the door was opened.
   */
  async ring(): Promise<{ opened: boolean }> {
    const mode: OpenerRingMode = this.continuousModeActive ? 'continuous_mode' : this.ringToOpenActive ? 'ring_to_open' : 'none';
    this.appendLog({
      timestamp: this.clock.now(),
      authorizationId: 0,
      name: '',
      detail: { kind: 'other', type: OpenerLogEntryType.doorbellRecognition, data: encodeDoorbellRecognition({ mode, source: 0, trailing: Buffer.alloc(0) }) },
    });
    if (mode === 'none') return { opened: false };
    if (mode === 'ring_to_open') this.ringToOpenActive = false;
    await new Promise<void>((resolve) => {
      if (this.strikeRunning) {
        resolve();
        return;
      }
      this.strike(OpenerTrigger.automatic, { id: 0, name: '' }, () => {
        resolve();
      });
    });
    return { opened: true };
  }

  /** Sets the battery's critical flag (the Opener reports nothing else). */
  setBatteryCritical(critical: boolean): void {
    if (critical === this.critical) return;
    this.critical = critical;
    this.markNewState();
  }

  protected pairingResponder(context: NukiLinkPairingContext): NukiPairingResponder {
    return new NukiPairingResponder(context);
  }

  /** The Opener's keyturner service UUID. */
  protected beaconServiceUuid(): string {
    return NukiFamilyUuids.openerKeyturnerService;
  }

  private remoteAction(
    action: number,
    authorization: NukiAuthorization,
    nameSuffix: string | null,
    settled: (outcome: 'success' | 'motor_blocked') => void,
  ): 'busy' | 'started' {
    const actor = { id: authorization.id, name: nameSuffix === null ? authorization.name : `${authorization.name} ${nameSuffix}` };
    if (action === OpenerLockAction.electricStrikeActuation) {
      if (this.strikeRunning) return 'busy';
      this.strike(OpenerTrigger.system, actor, () => {
        settled('success');
      });
      return 'started';
    }
    switch (action) {
      case OpenerLockAction.activateRingToOpen:
        this.ringToOpenActive = true;
        break;
      case OpenerLockAction.deactivateRingToOpen:
        this.ringToOpenActive = false;
        break;
      case OpenerLockAction.activateContinuousMode:
        this.continuousModeActive = true;
        break;
      case OpenerLockAction.deactivateContinuousMode:
        this.continuousModeActive = false;
        break;
    }
    this.stateTrigger = OpenerTrigger.system;
    this.last = { action, trigger: OpenerTrigger.system, completionStatus: NukiCompletionStatus.success };
    this.appendLockAction(actor, action, OpenerTrigger.system, NukiCompletionStatus.success);
    setImmediate(() => {
      settled('success');
    });
    return 'started';
  }

  /** The electric strike: `opening` for strikeTimeMs, then logged and back to the mode. */
  private strike(trigger: number, actor: { id: number; name: string }, done: () => void): void {
    this.strikeRunning = true;
    this.stateTrigger = trigger;
    this.markNewState();
    const finish = (): void => {
      this.strikeRunning = false;
      this.last = { action: OpenerLockAction.electricStrikeActuation, trigger, completionStatus: NukiCompletionStatus.success };
      this.appendLockAction(actor, OpenerLockAction.electricStrikeActuation, trigger, NukiCompletionStatus.success);
      done();
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
    if (this.strikeTimeMs === 0) setImmediate(finish);
    else setTimeout(finish, this.strikeTimeMs);
  }

  private keyturnerStatesPayload(): Buffer {
    const pairing = this.inPairingMode;
    const lockState = this.strikeRunning ? OpenerLockState.opening : this.ringToOpenActive ? OpenerLockState.ringToOpenActive : OpenerLockState.locked;
    const states = {
      nukiState: pairing ? OpenerState.pairingMode : this.continuousModeActive ? OpenerState.continuousMode : OpenerState.doorMode,
      lockState,
      trigger: this.stateTrigger,
      currentTime: this.clock.now(),
      timezoneOffsetMinutes: 0,
      battery: { critical: this.critical, charging: null, percent: null },
      configUpdateCount: 0,
      // The Opener keeps its Ring to Open timer where the Smart Lock keeps lock 'n' go's.
      lockNGoTimer: this.ringToOpenActive ? 20 : 0,
      lastLockAction: this.last?.action ?? 0,
      lastLockActionTrigger: this.last?.trigger ?? 0,
      lastLockActionCompletionStatus: this.last?.completionStatus ?? 0,
      doorSensorState: null,
      nightModeActive: null,
      accessoryBatteryState: null,
      trailing: Buffer.alloc(0),
    };
    return encodeKeyturnerStates(states);
  }
}
