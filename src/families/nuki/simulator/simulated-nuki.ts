import type { BoltPosition, LockAction } from '../../../domain/lock-vocabulary.js';
import { NukiCompletionStatus, NukiLockAction, NukiLogEntryType, NukiTrigger } from '../protocol/nuki-commands.js';
import { randomNukiNonce } from '../protocol/nuki-crypto.js';
import { NukiUuids } from '../protocol/nuki-uuids.js';
import type { NukiAuthorizationType } from './nuki-authorization-table.js';
import { NUKI_GATT_DATABASE } from './nuki-gatt-database.js';
import { NukiKeyturnerResponder } from './nuki-keyturner-responder.js';
import { NukiLockMechanism, boltOfNukiLockState, type NukiMoveRefusal, type SimulatedNukiAction, type SimulatedNukiLockState } from './nuki-lock-mechanism.js';
import { NukiPairingResponder } from './nuki-pairing-responder.js';
import { batteryReportPayload, configPayload, keyturnerStatesPayload, type NukiKeyturnerStatesLength, type NukiStatusSnapshot } from './nuki-status-payloads.js';
import { SimulatedNukiDevice, type NukiLinkPairingContext } from './simulated-nuki-device.js';
import type { SimulatedNukiOptions } from './simulated-nuki-options.js';
import type { SimulatedGattService } from '../../../gateway/transports/simulator/simulated-device.js';
import { NUKI_MODELS, NukiFamilyUuids, type NukiApiLevel, type NukiModel } from '../nuki-api-level.js';
import { NukiApi23PairingResponder } from './nuki-api23-pairing-responder.js';
import { NukiKeypadStore, NUKI_KEYPAD_CAPACITY } from './nuki-keypad-store.js';
import { NukiKeypadLockout } from './nuki-keypad-lockout.js';
import { NukiKeypadResponder } from './nuki-keypad-responder.js';
import type { NukiKeypadCode } from '../protocol/nuki-keypad-messages.js';
import { NukiKeypadSource, encodeKeypadActionLogData } from '../protocol/nuki-keypad-messages.js';

export type { SimulatedNukiFaults } from './simulated-nuki-faults.js';
export type { NukiAuthorizationType } from './nuki-authorization-table.js';
export type { SimulatedNukiLockState } from './nuki-lock-mechanism.js';
export type { NukiKeyturnerStatesLength } from './nuki-status-payloads.js';
export type { SimulatedNukiAuthorizationOption, SimulatedNukiOptions } from './simulated-nuki-options.js';

/** What a tap did: the named authorization acted, or no authorization has that name. */
export type NukiTapResult = 'accepted' | 'refused';

/**
 * The lock side of the Nuki Smart Lock Bluetooth API V2.1, in memory: pairing ("Authorize App"),
 * the encrypted keyturner channel with single-use challenges, lock actions with their status
 * sequence, the log read with the security PIN, the iBeacon with its new-state flag, radio range
 * and injectable faults. Like SimulatedLock it changes only when driven (a method call, a write,
 * or a motor timer it started).
 *
 * Rules where the spec leaves a choice:
 * - Beacon flag (measured power −59): set by every change of lock state, battery or door and by
 *   every new log entry; cleared when an authorized central has been answered a Request Data
 *   (Keyturner States) after the last such change. States pushed during a Lock Action do not clear it.
 * - Pairing mode (`startPairingMode()`) ends after one successful pairing or `pairingTimeoutMs`
 *   of the injected clock, checked when a pairing message arrives (no timer).
 * - A motor block is answered with Keyturner States (lock state 0xFE), then Error Report
 *   K_ERROR_MOTOR_BLOCKED; no Status COMPLETE. The bolt stays blocked (further Lock Actions:
 *   K_ERROR_MOTOR_BLOCKED at once, nothing logged) until `manualTurn()`.
 * - Every completed motorised move is logged, a blocked one with completion status "motor blocked".
 */
export class SimulatedNuki extends SimulatedNukiDevice {
  /** The lock's public key (what Public Key sends during pairing). */
  /** The lock's long-term public key (made on first use). */
  get publicKey(): Buffer {
    return Buffer.from(this.keyPair.publicKey);
  }
  readonly gattDatabase: readonly SimulatedGattService[];
  /** The model it simulates; its API level decides the pairing service and the PIN's size. */
  readonly model: Exclude<NukiModel, 'opener'>;
  readonly apiLevel: NukiApiLevel;

  protected readonly keyturner: NukiKeyturnerResponder;
  private readonly firmware: [number, number, number];
  private readonly hardware: [number, number];
  private readonly securityPin: number;
  private readonly hasDoorSensor: boolean;
  private readonly keyturnerStatesLength: NukiKeyturnerStatesLength;
  private readonly nonce: () => Buffer;
  private readonly mechanism: NukiLockMechanism;
  private battery: number;
  private charging = false;
  private doorState: 'open' | 'closed';
  /** The keypad's codes; null without a keypad. */
  private readonly keypadStore: NukiKeypadStore | null;
  /** The keypad's wait after wrong codes in a row (src/families/nuki/simulator/nuki-keypad-lockout.ts). */
  private readonly keypadLockout = new NukiKeypadLockout();
  /** The lock's own clock runs this far from the injected one (ms; `lock_clock`, Update Time). */
  private clockOffsetMs = 0;
  /** The lock's time zone: weekdays and daily windows of keypad codes are read in it. */
  readonly timeZone: string;

  constructor(options: SimulatedNukiOptions) {
    const model = options.model ?? 'smart_lock_4';
    const apiLevel = NUKI_MODELS[model].apiLevel;
    super({
      address: options.address,
      name: options.name,
      clock: options.clock,
      nukiId: options.nukiId,
      lockUuidSeed: 'simulated-nuki',
      keyPair: options.keyPair,
      fragmentSize: options.fragmentSize ?? 20,
      maxAuthorizations: options.maxAuthorizations ?? 100,
      authorizations: (options.authorizations ?? []).map((entry) => ({ id: entry.id, name: entry.name, type: entry.type, sharedKey: entry.sharedKey ?? null, appId: 0 })),
      logCapacity: options.logCapacity ?? 500,
      firstLogIndex: options.firstLogIndex ?? 1,
      pairingTimeoutMs: options.pairingTimeoutMs ?? 30_000,
      characteristics: {
        pairingGdio: apiLevel === '2.3' ? NukiFamilyUuids.lockPairingGdioApi23 : NukiUuids.pairingGdio,
        keyturnerGdio: NukiUuids.keyturnerGdio,
        keyturnerUsdio: NukiUuids.keyturnerUsdio,
      },
    });
    if (!isU32(this.nukiId)) throw new RangeError(`a Nuki ID is a u32, not ${this.nukiId}`);
    this.firmware = options.firmware ?? [2, 14, 6];
    this.hardware = options.hardware ?? [2, 0];
    this.model = model;
    this.apiLevel = apiLevel;
    this.gattDatabase = this.apiLevel === '2.3' ? API23_GATT_DATABASE : NUKI_GATT_DATABASE;
    const maxPin = this.apiLevel === '2.3' ? 999_999 : 0xffff;
    if (!Number.isInteger(options.securityPin) || options.securityPin < 0 || options.securityPin > maxPin) {
      throw new RangeError(this.apiLevel === '2.3' ? 'the security PIN of an API 2.3 lock has six digits' : 'the security PIN is a u16');
    }
    this.securityPin = options.securityPin;
    const fragmentSize = options.fragmentSize ?? 20;
    if (!Number.isInteger(fragmentSize) || fragmentSize < 1) throw new RangeError('fragmentSize must be a positive integer');
    this.hasDoorSensor = options.hasDoorSensor ?? false;
    this.doorState = options.door ?? 'closed';
    this.keyturnerStatesLength = options.keyturnerStatesLength ?? 27;
    this.nonce = options.nonce ?? ((): Buffer => randomNukiNonce(32));
    this.battery = clampPercent(options.batteryPercent ?? 100);
    this.mechanism = new NukiLockMechanism(options.motorTimeMs ?? 0, options.bolt ?? 'locked', () => {
      this.markNewState();
    });
    this.timeZone = options.timeZone ?? 'UTC';
    this.keypadStore = options.keypad === true ? new NukiKeypadStore(options.keypadCapacity ?? NUKI_KEYPAD_CAPACITY) : null;
    const keypadResponder = new NukiKeypadResponder({
      store: this.keypadStore,
      securityPin: this.securityPin,
      lockNow: () => this.lockNow(),
      setLockTime: (time) => {
        this.clockOffsetMs = time - this.clock.now();
      },
      takeWriteDrop: () => {
        const drop = this.faults.dropKeypadWrite;
        this.faults.dropKeypadWrite = 'none';
        return drop;
      },
      changed: () => undefined,
    });
    this.keyturner = new NukiKeyturnerResponder({
      ...this.keyturnerContext(),
      securityPin: this.securityPin,
      hasDoorSensor: this.hasDoorSensor,
      keyturnerStates: () => keyturnerStatesPayload(this.statusSnapshot(), this.keyturnerStatesLength),
      config: () =>
        configPayload({ nukiId: this.nukiId, name: this.name, firmware: this.firmware, hardware: this.hardware }, this.clock.now(), {
          fob: this.authorizationTable.firstOfType('fob') !== undefined,
          keypad: this.keypadStore !== null || this.authorizationTable.firstOfType('keypad') !== undefined,
        }),
      batteryReport: () => batteryReportPayload(this.statusSnapshot()),
      keypad: keypadResponder,
      remoteAction: (action, authorization, nameSuffix, settled) =>
        // The responder passes only codes isSimulatedNukiAction accepted.
        this.motorisedAction(action as SimulatedNukiAction, NukiTrigger.system, { id: authorization.id, name: nameSuffix === null ? authorization.name : `${authorization.name} ${nameSuffix}` }, 'lock_action', settled),
    });
  }

  /** Where the bolt is now (docs/design.md §4b mapping of the Nuki lock state). */
  get bolt(): BoltPosition {
    return boltOfNukiLockState(this.mechanism.lockState);
  }

  /** The Nuki lock state (NukiLockState) now. */
  get lockState(): SimulatedNukiLockState {
    return this.mechanism.lockState;
  }

  /** Battery percent 0..100. */
  get batteryPercent(): number {
    return this.battery;
  }

  /** The door as the sensor sees it; null without a door sensor. */
  get door(): 'open' | 'closed' | null {
    return this.hasDoorSensor ? this.doorState : null;
  }

  /** True while a motorised move is under way. */
  get isMoving(): boolean {
    return this.mechanism.isMoving;
  }

  /** True while the lock accepts a new pairing. */
  get pairingMode(): boolean {
    return this.inPairingMode;
  }

  /** Resolves when no motorised move is under way. */
  idle(): Promise<void> {
    return this.mechanism.idle();
  }

  /** The user held the button for 5 s: pairing is accepted for `pairingTimeoutMs`. */
  override startPairingMode(): void {
    super.startPairingMode();
    // An API 2.3 lock's beacon shows pairing mode.
    this.advertisementChanged();
  }

  /**
   * The paired authorization named `authorizationName` (e.g. "Olivia's iPhone") locks or unlocks,
   * as if that phone sent the Lock Action: a motorised move logged with its id and name, trigger
   * system. Refused when no authorization has that name. While the motor runs or is blocked the
   * tap is accepted but nothing moves (as SimulatedLock).
   */
  tap(authorizationName: string, action: LockAction): NukiTapResult {
    const authorization = this.authorizationTable.byName(authorizationName);
    if (authorization === undefined) return 'refused';
    this.motorisedAction(toNukiAction(action), NukiTrigger.system, authorization, 'lock_action');
    return 'accepted';
  }

  /**
   * Adds an authorization as if that device had been paired through the Nuki app (it taps and
   * appears in the log; it has no key we know, so its frames are never accepted); returns its id.
   * A name already held returns that authorization's id. @throws RangeError when the lock is full.
   */
  addAuthorization(name: string, type: NukiAuthorizationType = 'app'): number {
    const existing = this.authorizationTable.byName(name);
    if (existing !== undefined) return existing.id;
    if (this.authorizationTable.full) throw new RangeError(`${this.name} holds its maximum of ${this.authorizationTable.capacity} authorizations`);
    const id = this.authorizationTable.nextId();
    this.authorizationTable.add({ id, name, type, sharedKey: null, appId: 0 });
    return id;
  }

  /** A Nuki Fob button: logged under the first paired fob (or authorization 0, "Nuki Fob"). */
  fob(action: LockAction): void {
    const fob = this.authorizationTable.firstOfType('fob');
    this.motorisedAction(toNukiAction(action), NukiTrigger.system, fob ?? { id: 0, name: 'Nuki Fob' }, 'lock_action');
  }

  /** A code typed on the Nuki Keypad: a Keypad action log entry (type 0x05) under the first paired keypad. */
  keypad(action: LockAction): void {
    const keypad = this.authorizationTable.firstOfType('keypad');
    this.motorisedAction(toNukiAction(action), NukiTrigger.system, keypad ?? { id: 0, name: 'Nuki Keypad' }, 'keypad_action');
  }

  /** True when a Nuki Keypad is paired (the lock stores keypad codes). */
  get hasKeypad(): boolean {
    return this.keypadStore !== null;
  }

  /** The keypad codes the lock holds, as it holds them. @throws RangeError without a keypad */
  keypadCodes(): NukiKeypadCode[] {
    return this.keypadOrThrow().list();
  }

  /**
   * A code typed on the Nuki Keypad, judged by the lock against the codes it stores, on its own
   * clock and in its own time zone (docs/design.md §4c). Accepted: the motor moves and the log
   * names the code's id; refused: logged as an invalid code, nothing moves. After 5 wrong codes in
   * a row the keypad takes no code for 30 s (nuki-keypad-lockout.ts): refused, and not logged.
   * @throws RangeError without a keypad
   */
  typeCode(code: string, action: LockAction): 'accepted' | 'refused' {
    const store = this.keypadOrThrow();
    const keypad = this.authorizationTable.firstOfType('keypad') ?? { id: 0, name: 'Nuki Keypad' };
    if (!this.keypadLockout.accepts(this.lockNow())) return 'refused';
    const judgement = store.judge(code, this.lockNow(), this.timeZone);
    if (!judgement.accepted) {
      this.keypadLockout.wrong(this.lockNow());
      this.appendKeypadLog(keypad, toNukiAction(action), NukiCompletionStatus.invalidCode, 0);
      return 'refused';
    }
    this.keypadLockout.right();
    const codeId = judgement.code.codeId;
    const nukiAction = toNukiAction(action);
    this.mechanism.start(nukiAction, NukiTrigger.system, (outcome) => {
      this.appendKeypadLog(keypad, nukiAction, outcome === 'success' ? NukiCompletionStatus.success : NukiCompletionStatus.motorBlocked, codeId);
    });
    return 'accepted';
  }

  /** Adds a code as the vendor's app would (the service did not make it); returns its id. @throws RangeError without a keypad or when the lock refuses */
  addVendorCode(code: string, name = 'Nuki App'): number {
    const store = this.keypadOrThrow();
    try {
      return store.add(Number(code), name, { timeLimited: false, allowedFrom: null, allowedUntil: null, allowedWeekdays: 0, allowedFromTime: { hour: 0, minute: 0 }, allowedUntilTime: { hour: 0, minute: 0 } }, this.lockNow()).codeId;
    } catch (error) {
      throw new RangeError(`${this.name} refused the code: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The lock's own clock (ms since the epoch, UTC). */
  lockNow(): number {
    return this.clock.now() + this.clockOffsetMs;
  }

  /** Sets the lock's clock `offsetS` seconds off the true time. */
  setClockOffset(offsetS: number): void {
    this.clockOffsetMs = offsetS * 1000;
  }

  /** The auto-lock timer fires: a motorised lock, trigger auto lock. */
  autoLock(): void {
    this.motorisedAction(NukiLockAction.lock, NukiTrigger.autoLock, { id: 0, name: '' }, 'lock_action');
  }

  /** A key or the thumb-turn: no motor, always succeeds, clears a jam; logged (trigger manual) when the bolt changes. */
  manualTurn(bolt: 'locked' | 'unlocked'): void {
    const action = this.mechanism.manualTurn(bolt);
    if (action === null) return;
    this.appendActionLog({ id: 0, name: '' }, 'lock_action', action, NukiTrigger.manual, NukiCompletionStatus.success);
  }

  /** The next motorised move ends motor blocked (lock state 0xFE) and stays so until a manual turn. */
  jamNextMove(): void {
    this.mechanism.jamNextMove();
  }

  /** Sets the battery (percent 0..100; critical at 20 % and below) and whether it is charging. */
  setBattery(percent: number, charging = false): void {
    const level = clampPercent(percent);
    if (level === this.battery && charging === this.charging) return;
    this.battery = level;
    this.charging = charging;
    this.markNewState();
  }

  /** The door sensor sees the door open or close; logged (type 0x06). @throws RangeError without a door sensor. */
  setDoor(door: 'open' | 'closed'): void {
    if (!this.hasDoorSensor) throw new RangeError(`${this.name} has no door sensor`);
    if (door === this.doorState) return;
    this.doorState = door;
    this.appendLog({
      timestamp: this.clock.now(),
      authorizationId: 0,
      name: '',
      // Type 0x06 data: 0x00 door opened, 0x01 door closed.
      detail: { kind: 'other', type: NukiLogEntryType.doorSensor, data: Buffer.from([door === 'open' ? 0x00 : 0x01]) },
    });
  }

  protected pairingResponder(context: NukiLinkPairingContext): { handle(frame: Buffer): void } {
    return this.apiLevel === '2.3' ? new NukiApi23PairingResponder({ ...context, securityPin: this.securityPin }) : new NukiPairingResponder(context);
  }

  /** The keyturner service; an API 2.3 lock in pairing mode shows its pairing service, which is how a scan tells the model class. */
  protected beaconServiceUuid(): string {
    return this.apiLevel === '2.3' && this.inPairingMode ? NukiFamilyUuids.lockPairingServiceApi23 : NukiUuids.keyturnerService;
  }

  private motorisedAction(
    action: SimulatedNukiAction,
    trigger: number,
    actor: { id: number; name: string },
    logType: 'lock_action' | 'keypad_action',
    settled?: (outcome: 'success' | 'motor_blocked') => void,
  ): NukiMoveRefusal | 'started' {
    const started = this.mechanism.start(action, trigger, (outcome) => {
      const completion = outcome === 'success' ? NukiCompletionStatus.success : NukiCompletionStatus.motorBlocked;
      this.appendActionLog(actor, logType, action, trigger, completion);
      settled?.(outcome);
    });
    if (started === 'started' && this.faults.motorBlocked) {
      this.faults.motorBlocked = false;
      this.mechanism.jamNextMove();
    }
    return started;
  }

  private appendActionLog(actor: { id: number; name: string }, logType: 'lock_action' | 'keypad_action', action: number, trigger: number, completionStatus: number): void {
    if (logType === 'lock_action') {
      this.appendLockAction(actor, action, trigger, completionStatus);
      return;
    }
    // Type 0x05 data: action, source (0x01 code), completion status, code id u16 LE.
    const data = Buffer.from([action, 0x01, completionStatus, 0x01, 0x00]);
    this.appendLog({ timestamp: this.clock.now(), authorizationId: actor.id, name: actor.name, detail: { kind: 'other', type: NukiLogEntryType.keypadAction, data } });
  }

  private keypadOrThrow(): NukiKeypadStore {
    if (this.keypadStore === null) throw new RangeError(`${this.name} has no keypad`);
    return this.keypadStore;
  }

  private appendKeypadLog(actor: { id: number; name: string }, action: number, completionStatus: number, codeId: number): void {
    const data = encodeKeypadActionLogData({ action, source: NukiKeypadSource.code, completionStatus, codeId });
    this.appendLog({ timestamp: this.lockNow(), authorizationId: actor.id, name: actor.name, detail: { kind: 'other', type: NukiLogEntryType.keypadAction, data } });
  }

  private statusSnapshot(): NukiStatusSnapshot {
    return {
      now: this.lockNow(),
      pairingMode: this.inPairingMode,
      lockState: this.mechanism.lockState,
      trigger: this.mechanism.trigger,
      lastLockAction: this.mechanism.lastLockAction,
      batteryPercent: this.battery,
      charging: this.charging,
      door: this.door,
    };
  }

  protected override nonce32(): Buffer {
    const nonce = this.nonce();
    if (nonce.length < 32) throw new RangeError('the nonce source must return at least 32 bytes');
    return Buffer.from(nonce.subarray(0, 32));
  }
}

/** The GATT database of an API 2.3 Smart Lock: the 2.3 pairing service instead of the older one. */
const API23_GATT_DATABASE: readonly SimulatedGattService[] = NUKI_GATT_DATABASE.map((service) =>
  service.uuid === NukiUuids.pairingService
    ? { uuid: NukiFamilyUuids.lockPairingServiceApi23, characteristics: [{ uuid: NukiFamilyUuids.lockPairingGdioApi23, flags: ['write', 'indicate'] as const }] }
    : service,
);

function toNukiAction(action: LockAction): typeof NukiLockAction.lock | typeof NukiLockAction.unlock {
  return action === 'lock' ? NukiLockAction.lock : NukiLockAction.unlock;
}

function clampPercent(percent: number): number {
  return Math.max(0, Math.min(100, Math.round(percent)));
}

function isU32(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= 0xffffffff;
}

