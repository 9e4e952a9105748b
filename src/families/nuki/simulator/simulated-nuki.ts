import type { BoltPosition, LockAction } from '../../../domain/lock-vocabulary.js';
import { createHash } from 'node:crypto';
import type { Clock } from '../../../domain/clock.js';
import { NukiCommand, NukiCompletionStatus, NukiLockAction, NukiLogEntryType, NukiTrigger } from '../protocol/nuki-commands.js';
import { createNukiKeyPair, randomNukiNonce, type NukiKeyPair } from '../protocol/nuki-crypto.js';
import { encodeErrorReport, type NukiLogEntry } from '../protocol/nuki-messages.js';
import { NUKI_APPLE_COMPANY_ID, NukiUuids, encodeNukiBeacon } from '../protocol/nuki-uuids.js';
import { NukiAuthorizationTable, type NukiAuthorizationType } from './nuki-authorization-table.js';
import { NUKI_GATT_DATABASE, keyturnerGdioErrorReport } from './nuki-gatt-database.js';
import { NukiIndicationLink } from './nuki-indication-link.js';
import { NukiKeyturnerResponder } from './nuki-keyturner-responder.js';
import { NukiLockLog } from './nuki-lock-log.js';
import { NukiLockMechanism, boltOfNukiLockState, type NukiMoveRefusal, type SimulatedNukiAction, type SimulatedNukiLockState } from './nuki-lock-mechanism.js';
import { NukiPairingResponder } from './nuki-pairing-responder.js';
import { NukiReplySender } from './nuki-reply-sender.js';
import { batteryReportPayload, configPayload, keyturnerStatesPayload, type NukiKeyturnerStatesLength, type NukiStatusSnapshot } from './nuki-status-payloads.js';
import { noSimulatedNukiFaults, type SimulatedNukiFaults } from './simulated-nuki-faults.js';
import type { SimulatedNukiOptions } from './simulated-nuki-options.js';
import { GattOperationError, type SimulatedAdvertisement, type SimulatedDevice, type SimulatedGattService, type SimulatedLockLink } from '../../../gateway/simulator/simulated-device.js';
import { NUKI_MODELS, NukiFamilyUuids, type NukiApiLevel, type NukiModel } from '../nuki-api-level.js';
import { NukiApi23PairingResponder } from './nuki-api23-pairing-responder.js';
import { NukiKeypadStore, NUKI_KEYPAD_CAPACITY } from './nuki-keypad-store.js';
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

/** Signal strength every scan reports, dBm (the simulation has no distance). */
const SIMULATED_RSSI = -65;

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
export class SimulatedNuki implements SimulatedDevice {
  readonly address: string;
  readonly name: string;
  readonly nukiId: number;
  /** The lock's public key (what Public Key sends during pairing). */
  readonly publicKey: Buffer;
  /** The lock's UUID from Authorization-ID (derived from the address). */
  readonly lockUuid: Buffer;
  /** Injectable faults; change any field at any time. */
  readonly faults: SimulatedNukiFaults = noSimulatedNukiFaults();
  readonly gattDatabase: readonly SimulatedGattService[];
  /** The model it simulates; its API level decides the pairing service and the PIN's size. */
  readonly model: Exclude<NukiModel, 'opener'>;
  readonly apiLevel: NukiApiLevel;

  private readonly clock: Clock;
  private readonly firmware: [number, number, number];
  private readonly hardware: [number, number];
  private readonly securityPin: number;
  private readonly fragmentSize: number;
  private readonly hasDoorSensor: boolean;
  private readonly pairingTimeoutMs: number;
  private readonly keyturnerStatesLength: NukiKeyturnerStatesLength;
  private readonly keyPair: NukiKeyPair;
  private readonly nonce: () => Buffer;
  private readonly authorizationTable: NukiAuthorizationTable;
  private readonly lockLog: NukiLockLog;
  private readonly mechanism: NukiLockMechanism;
  private readonly sender: NukiReplySender;
  private readonly keyturner: NukiKeyturnerResponder;
  private readonly links = new Map<NukiIndicationLink, { handle(frame: Buffer): void }>();
  private readonly advertisementListeners = new Set<() => void>();
  private battery: number;
  private charging = false;
  private doorState: 'open' | 'closed';
  private reachable = true;
  private newState = false;
  private pairingModeUntil: number | null = null;
  /** The keypad's codes; null without a keypad. */
  private readonly keypadStore: NukiKeypadStore | null;
  /** The lock's own clock runs this far from the injected one (ms; `lock_clock`, Update Time). */
  private clockOffsetMs = 0;
  /** The lock's time zone: weekdays and daily windows of keypad codes are read in it. */
  readonly timeZone: string;

  constructor(options: SimulatedNukiOptions) {
    this.address = options.address.toUpperCase();
    this.name = options.name;
    this.clock = options.clock;
    this.nukiId = options.nukiId ?? Number.parseInt(this.address.replace(/:/g, '').slice(-8), 16);
    if (!isU32(this.nukiId)) throw new RangeError(`a Nuki ID is a u32, not ${this.nukiId}`);
    this.firmware = options.firmware ?? [2, 14, 6];
    this.hardware = options.hardware ?? [2, 0];
    this.model = options.model ?? 'smart_lock_4';
    this.apiLevel = NUKI_MODELS[this.model].apiLevel;
    this.gattDatabase = this.apiLevel === '2.3' ? API23_GATT_DATABASE : NUKI_GATT_DATABASE;
    const maxPin = this.apiLevel === '2.3' ? 999_999 : 0xffff;
    if (!Number.isInteger(options.securityPin) || options.securityPin < 0 || options.securityPin > maxPin) {
      throw new RangeError(this.apiLevel === '2.3' ? 'the security PIN of an API 2.3 lock has six digits' : 'the security PIN is a u16');
    }
    this.securityPin = options.securityPin;
    this.fragmentSize = options.fragmentSize ?? 20;
    if (!Number.isInteger(this.fragmentSize) || this.fragmentSize < 1) throw new RangeError('fragmentSize must be a positive integer');
    this.hasDoorSensor = options.hasDoorSensor ?? false;
    this.doorState = options.door ?? 'closed';
    this.pairingTimeoutMs = options.pairingTimeoutMs ?? 30_000;
    this.keyturnerStatesLength = options.keyturnerStatesLength ?? 27;
    this.keyPair = options.keyPair ?? createNukiKeyPair();
    this.publicKey = Buffer.from(this.keyPair.publicKey);
    this.lockUuid = createHash('sha256').update(`simulated-nuki:${this.address}`).digest().subarray(0, 16);
    this.nonce = options.nonce ?? ((): Buffer => randomNukiNonce(32));
    this.battery = clampPercent(options.batteryPercent ?? 100);
    this.authorizationTable = new NukiAuthorizationTable(
      options.maxAuthorizations ?? 100,
      (options.authorizations ?? []).map((entry) => ({ id: entry.id, name: entry.name, type: entry.type, sharedKey: entry.sharedKey ?? null, appId: 0 })),
    );
    this.lockLog = new NukiLockLog(options.logCapacity ?? 500, options.firstLogIndex ?? 1);
    this.mechanism = new NukiLockMechanism(options.motorTimeMs ?? 0, options.bolt ?? 'locked', () => {
      this.markNewState();
    });
    this.sender = new NukiReplySender(this.faults, () => this.nonce32());
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
      authorizations: this.authorizationTable,
      faults: this.faults,
      sender: this.sender,
      securityPin: this.securityPin,
      hasDoorSensor: this.hasDoorSensor,
      nonce32: () => this.nonce32(),
      keyturnerStates: () => keyturnerStatesPayload(this.statusSnapshot(), this.keyturnerStatesLength),
      keyturnerStatesRead: () => {
        this.setNewState(false);
      },
      config: () =>
        configPayload({ nukiId: this.nukiId, name: this.name, firmware: this.firmware, hardware: this.hardware }, this.clock.now(), {
          fob: this.authorizationTable.firstOfType('fob') !== undefined,
          keypad: this.keypadStore !== null || this.authorizationTable.firstOfType('keypad') !== undefined,
        }),
      batteryReport: () => batteryReportPayload(this.statusSnapshot()),
      selectLog: (startIndex, sortOrder) => this.lockLog.select(startIndex, sortOrder),
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

  /** True while the lock is within radio range (advertising and answering). */
  get inRange(): boolean {
    return this.reachable;
  }

  /** True while a motorised move is under way. */
  get isMoving(): boolean {
    return this.mechanism.isMoving;
  }

  /** True while the beacon flags a new state or log entry (measured power −59). */
  get newStateFlagged(): boolean {
    return this.newState;
  }

  /** True while the lock accepts a new pairing. */
  get pairingMode(): boolean {
    return this.inPairingMode();
  }

  /** The log, oldest first (as Log Entry messages carry it). */
  get log(): readonly NukiLogEntry[] {
    return this.lockLog.all;
  }

  /** The authorizations, by id (without their keys). */
  get authorizations(): readonly { id: number; name: string; type: NukiAuthorizationType; appId: number }[] {
    return this.authorizationTable.list();
  }

  /** Number of open GATT links. */
  get connectionCount(): number {
    return this.links.size;
  }

  /** Resolves when no motorised move is under way. */
  idle(): Promise<void> {
    return this.mechanism.idle();
  }

  /** Resolves when no move is under way and every reply queued on every link has been delivered. */
  async settled(): Promise<void> {
    await this.mechanism.idle();
    await Promise.all([...this.links.keys()].map((link) => link.drained()));
  }

  /** The user held the button for 5 s: pairing is accepted for `pairingTimeoutMs`. */
  startPairingMode(): void {
    this.pairingModeUntil = this.clock.now() + this.pairingTimeoutMs;
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
   * names the code's id; refused: logged as an invalid code, nothing moves.
   * @throws RangeError without a keypad
   */
  typeCode(code: string, action: LockAction): 'accepted' | 'refused' {
    const store = this.keypadOrThrow();
    const keypad = this.authorizationTable.firstOfType('keypad') ?? { id: 0, name: 'Nuki Keypad' };
    const judgement = store.judge(code, this.lockNow(), this.timeZone);
    if (!judgement.accepted) {
      this.appendKeypadLog(keypad, toNukiAction(action), NukiCompletionStatus.invalidCode, 0);
      return 'refused';
    }
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
    this.appendLog({ id: 0, name: '' }, 'lock_action', action, NukiTrigger.manual, NukiCompletionStatus.success);
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
    this.lockLog.append({
      timestamp: this.clock.now(),
      authorizationId: 0,
      name: '',
      // Type 0x06 data: 0x00 door opened, 0x01 door closed.
      detail: { kind: 'other', type: NukiLogEntryType.doorSensor, data: Buffer.from([door === 'open' ? 0x00 : 0x01]) },
    });
    this.markNewState();
  }

  /** The lock leaves radio range: open links are lost, it stops advertising and answering. */
  goOutOfRange(): void {
    if (!this.reachable) return;
    this.reachable = false;
    for (const link of [...this.links.keys()]) link.lose();
    this.advertisementChanged();
  }

  /** The lock is back in range and advertises again. */
  comeBackInRange(): void {
    if (this.reachable) return;
    this.reachable = true;
    this.advertisementChanged();
  }

  openLink(): SimulatedLockLink {
    if (!this.reachable) throw new GattOperationError('not_connected', `${this.address} is out of range`);
    const link = new NukiIndicationLink(
      {
        handleWrite: (from, uuid, value) => {
          this.handleWrite(from, uuid, value);
        },
        detach: (from) => {
          this.links.delete(from);
        },
        replyDelayMs: () => this.faults.replyDelayMs,
      },
      this.fragmentSize,
    );
    const gdio = this.apiLevel === '2.3' ? NukiFamilyUuids.lockPairingGdioApi23 : NukiUuids.pairingGdio;
    const context = {
      inPairingMode: () => this.inPairingMode(),
      keyPair: this.keyPair,
      lockUuid: this.lockUuid,
      authorizations: this.authorizationTable,
      nonce32: () => this.nonce32(),
      completePairing: (entry: Parameters<NukiAuthorizationTable['add']>[0]) => {
        this.authorizationTable.add(entry);
        this.pairingModeUntil = null;
      },
      reply: (command: number, payload: Buffer) => {
        this.sender.unencrypted(link, gdio, command, payload);
      },
    };
    const pairing =
      this.apiLevel === '2.3'
        ? new NukiApi23PairingResponder({
            ...context,
            securityPin: this.securityPin,
            replyEncrypted: (sharedKey, authorizationId, command, payload) => {
              this.sender.encrypted(link, gdio, sharedKey, authorizationId, command, payload);
            },
          })
        : new NukiPairingResponder(context);
    this.links.set(link, pairing);
    return link;
  }

  /** An iBeacon with the keyturner service UUID; measured power −59 while something new is unread. */
  advertisement(): SimulatedAdvertisement | null {
    if (!this.reachable) return null;
    // An API 2.3 lock in pairing mode shows its pairing service, which is how a scan tells the model class.
    const serviceUuid = this.apiLevel === '2.3' && this.inPairingMode() ? NukiFamilyUuids.lockPairingServiceApi23 : NukiUuids.keyturnerService;
    const beacon = encodeNukiBeacon({ newState: this.newState, major: this.nukiId >>> 16, minor: this.nukiId & 0xffff, serviceUuid });
    return { manufacturerData: new Map([[NUKI_APPLE_COMPANY_ID, beacon]]), rssi: SIMULATED_RSSI };
  }

  onAdvertisementChange(listener: () => void): () => void {
    const wrapped = (): void => {
      listener();
    };
    this.advertisementListeners.add(wrapped);
    return () => this.advertisementListeners.delete(wrapped);
  }

  private handleWrite(link: NukiIndicationLink, uuid: string, value: Buffer): void {
    if (value.length === 0) throw new GattOperationError('invalid_length', 'empty write');
    switch (uuid) {
      case NukiUuids.pairingGdio:
      case NukiFamilyUuids.lockPairingGdioApi23:
        if (uuid !== (this.apiLevel === '2.3' ? NukiFamilyUuids.lockPairingGdioApi23 : NukiUuids.pairingGdio)) {
          throw new GattOperationError('not_supported', `characteristic ${uuid} is not writable`);
        }
        this.links.get(link)?.handle(value);
        return;
      case NukiUuids.keyturnerUsdio:
        this.keyturner.handle(link, value);
        return;
      case NukiUuids.keyturnerGdio:
        this.sender.unencrypted(link, uuid, NukiCommand.errorReport, encodeErrorReport(keyturnerGdioErrorReport(value)));
        return;
      default:
        throw new GattOperationError('not_supported', `characteristic ${uuid} is not writable`);
    }
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
      this.appendLog(actor, logType, action, trigger, completion);
      settled?.(outcome);
    });
    if (started === 'started' && this.faults.motorBlocked) {
      this.faults.motorBlocked = false;
      this.mechanism.jamNextMove();
    }
    return started;
  }

  private appendLog(actor: { id: number; name: string }, logType: 'lock_action' | 'keypad_action', action: number, trigger: number, completionStatus: number): void {
    const detail: NukiLogEntry['detail'] =
      logType === 'lock_action'
        ? { kind: 'lock_action', action, trigger, flags: 0, completionStatus, trailing: Buffer.alloc(0) }
        : // Type 0x05 data: action, source (0x01 code), completion status, code id u16 LE.
          { kind: 'other', type: NukiLogEntryType.keypadAction, data: Buffer.from([action, 0x01, completionStatus, 0x01, 0x00]) };
    this.lockLog.append({ timestamp: this.clock.now(), authorizationId: actor.id, name: actor.name, detail });
    this.markNewState();
  }

  private keypadOrThrow(): NukiKeypadStore {
    if (this.keypadStore === null) throw new RangeError(`${this.name} has no keypad`);
    return this.keypadStore;
  }

  private appendKeypadLog(actor: { id: number; name: string }, action: number, completionStatus: number, codeId: number): void {
    const data = encodeKeypadActionLogData({ action, source: NukiKeypadSource.code, completionStatus, codeId });
    this.lockLog.append({ timestamp: this.lockNow(), authorizationId: actor.id, name: actor.name, detail: { kind: 'other', type: NukiLogEntryType.keypadAction, data } });
    this.markNewState();
  }

  private statusSnapshot(): NukiStatusSnapshot {
    return {
      now: this.lockNow(),
      pairingMode: this.inPairingMode(),
      lockState: this.mechanism.lockState,
      trigger: this.mechanism.trigger,
      lastLockAction: this.mechanism.lastLockAction,
      batteryPercent: this.battery,
      charging: this.charging,
      door: this.door,
    };
  }

  private inPairingMode(): boolean {
    return this.pairingModeUntil !== null && this.clock.now() < this.pairingModeUntil;
  }

  private nonce32(): Buffer {
    const nonce = this.nonce();
    if (nonce.length < 32) throw new RangeError('the nonce source must return at least 32 bytes');
    return Buffer.from(nonce.subarray(0, 32));
  }

  private markNewState(): void {
    this.setNewState(true);
  }

  private setNewState(value: boolean): void {
    if (this.newState === value) return;
    this.newState = value;
    this.advertisementChanged();
  }

  private advertisementChanged(): void {
    for (const listener of [...this.advertisementListeners]) listener();
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

