import type { ActivityRecord, ActivitySource, BoltPosition, DeviceInformation, LockAction } from '../../../domain/lock-vocabulary.js';
import type { Clock } from '../../../domain/clock.js';
import { encodeActivityBacklogEnd, encodeActivityRecord, decodeActivityReadSince } from '../protocol/activity-record-codec.js';
import { decodeControlRequest, encodeControlResponse, peekRequestHeader } from '../protocol/control-frame-codec.js';
import { decodeCredentialRequest, encodeCredentialResponse } from '../protocol/credential-frame-codec.js';
import {
  LockUuids,
  type ControlResult,
  type CredentialResult,
} from '../protocol/lock-profile.js';
import { ReplayGuard } from '../protocol/replay-guard.js';
import { encodeBatteryLevel, encodeBoltState } from '../protocol/status-value-codec.js';
import {
  GattOperationError,
  SimulatedLinkBase,
  type NotificationListener,
  type SimulatedAdvertisement,
  type SimulatedDevice,
  type SimulatedGattService,
  type SimulatedLockLink,
} from '../../../gateway/transports/simulator/simulated-device.js';

/** How to build a simulated lock. */
export interface SimulatedLockOptions {
  /** BLE address, `AA:BB:CC:DD:EE:FF`. */
  address: string;
  /** The per-lock 32-byte key shared with the gateway. */
  key: Buffer;
  /** Advertised name. */
  name: string;
  /** Timestamps of activity records come from here. */
  clock: Clock;
  /** How long a motorised move takes, in real ms; 0 (default) finishes on the next turn of the event loop. */
  motorTimeMs?: number;
  /** Initial bolt position (default `locked`). */
  bolt?: 'locked' | 'unlocked';
  /** Initial battery, percent 0..100 (default 100). */
  batteryPercent?: number;
  deviceInformation?: Partial<DeviceInformation>;
  /** How many activity records the lock keeps before overwriting the oldest (default 500). */
  activityCapacity?: number;
  /** Sequence number of the first activity record (default 1); a restarted demo continues its numbering. */
  firstSequence?: number;
  /**
   * Check taps against the credential allow-list from the start (docs/ble-protocol.md
   * "Credentials"). Default false: the check starts with the first accepted Credentials request
   * (the lock is adopted by a gateway), so tests that drive taps without a gateway keep working.
   */
  enforceCredentials?: boolean;
  /** How many credentials the allow-list holds (default 256); `allow` beyond it answers `list_full`. */
  credentialCapacity?: number;
}

/** What a tap did: moved (or was allowed to move) the bolt, or was refused by the credential check. */
export type TapResult = 'accepted' | 'refused';

export { GattOperationError };
export type { NotificationListener, SimulatedLockLink };

/** The lock's GATT database as BlueZ would present it (docs/ble-protocol.md §1). */
export const SIMULATED_LOCK_GATT_DATABASE: readonly SimulatedGattService[] = [
  {
    uuid: LockUuids.lockService,
    characteristics: [
      { uuid: LockUuids.boltState, flags: ['read', 'notify'] },
      { uuid: LockUuids.controlPoint, flags: ['write', 'notify'] },
      { uuid: LockUuids.activity, flags: ['write', 'notify'] },
      { uuid: LockUuids.credentials, flags: ['write', 'notify'] },
    ],
  },
  { uuid: LockUuids.batteryService, characteristics: [{ uuid: LockUuids.batteryLevel, flags: ['read', 'notify'] }] },
  {
    uuid: LockUuids.deviceInformationService,
    characteristics: [
      { uuid: LockUuids.manufacturerName, flags: ['read'] },
      { uuid: LockUuids.modelNumber, flags: ['read'] },
      { uuid: LockUuids.serialNumber, flags: ['read'] },
      { uuid: LockUuids.firmwareRevision, flags: ['read'] },
    ],
  },
];

/** Signal strength the simulated lock is seen with while in range, dBm. */
const IN_RANGE_RSSI = -60;

const NO_CREDENTIAL = null;

/**
 * The lock side of the profile, in memory: bolt, motor, jam, battery, activity log, radio range
 * and the Control Point protocol with replay protection. It changes only when driven (a method
 * call or a motor timer it started), so tests and demos repeat exactly.
 */
export class SimulatedLock implements SimulatedDevice {
  readonly address: string;
  readonly name: string;
  readonly deviceInformation: DeviceInformation;
  private readonly key: Buffer;
  private readonly clock: Clock;
  private readonly motorTimeMs: number;
  private readonly capacity: number;
  private readonly replayGuard = new ReplayGuard();
  private readonly log: ActivityRecord[] = [];
  private readonly links = new Set<LinkImpl>();
  private position: BoltPosition;
  private lastSource: ActivitySource | null = null;
  private battery: number;
  private jamPending = false;
  private moving = false;
  private nextSequence = 1;
  private reachable = true;
  private readonly idleWaiters: (() => void)[] = [];
  /** Credential allow-list: lower-case eKey UUID → valid until (ms, the lock's clock). */
  private readonly credentials = new Map<string, number>();
  private readonly credentialCapacity: number;
  private enforceCredentials: boolean;
  private readonly advertisementListeners = new Set<() => void>();

  constructor(options: SimulatedLockOptions) {
    this.address = options.address.toUpperCase();
    this.name = options.name;
    this.key = options.key;
    this.clock = options.clock;
    this.motorTimeMs = options.motorTimeMs ?? 0;
    this.capacity = options.activityCapacity ?? 500;
    this.position = options.bolt ?? 'locked';
    this.battery = options.batteryPercent ?? 100;
    this.nextSequence = Math.max(1, Math.floor(options.firstSequence ?? 1));
    this.enforceCredentials = options.enforceCredentials ?? false;
    this.credentialCapacity = options.credentialCapacity ?? 256;
    this.deviceInformation = {
      manufacturer: 'Open Lock Project',
      model: 'SIM-1',
      serial: this.address.replace(/:/g, ''),
      firmware: '1.0.0',
      ...options.deviceInformation,
    };
  }

  /** Where the bolt is now. */
  get bolt(): BoltPosition {
    return this.position;
  }

  /** Battery percent 0..100. */
  get batteryPercent(): number {
    return this.battery;
  }

  /** True while the lock is within radio range (advertising and answering). */
  get inRange(): boolean {
    return this.reachable;
  }

  /** True while a motorised move is under way. */
  get isMoving(): boolean {
    return this.moving;
  }

  /** Our profile's services (the same for every simulated lock). */
  get gattDatabase(): readonly SimulatedGattService[] {
    return SIMULATED_LOCK_GATT_DATABASE;
  }

  /** Our profile advertises no manufacturer data: only presence and signal strength, while in range. */
  advertisement(): SimulatedAdvertisement | null {
    return this.reachable ? { manufacturerData: new Map(), rssi: IN_RANGE_RSSI } : null;
  }

  /** Called on every range change (the only thing that changes this lock's advertisement). */
  onAdvertisementChange(listener: () => void): () => void {
    const registered = (): void => {
      listener();
    };
    this.advertisementListeners.add(registered);
    return () => {
      this.advertisementListeners.delete(registered);
    };
  }

  /** A copy of the activity log, oldest first. */
  get activity(): readonly ActivityRecord[] {
    return [...this.log];
  }

  /** Number of open GATT links (0 or 1 for a real lock; the model allows more). */
  get connectionCount(): number {
    return this.links.size;
  }

  /** Resolves when no motorised move is under way. */
  idle(): Promise<void> {
    if (!this.moving) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** True while taps are checked against the credential allow-list. */
  get checksCredentials(): boolean {
    return this.enforceCredentials;
  }

  /** The allow-list as the lock holds it now (expired entries dropped): credential → valid until. */
  get allowedCredentials(): ReadonlyMap<string, number> {
    this.dropExpiredCredentials();
    return new Map(this.credentials);
  }

  /**
   * An eKey holder taps the lock: a motorised move recorded with source `tap` and the eKey id.
   * While the lock checks credentials, a credential that is not on its list, or whose
   * `valid_until` has passed by the lock's clock, is refused: the bolt does not move and no
   * activity record is written (docs/ble-protocol.md "Credentials").
   */
  tap(ekeyId: string, action: LockAction): TapResult {
    const credential = ekeyId.toLowerCase();
    if (!this.acceptsCredential(credential)) return 'refused';
    this.startMove(action, 'tap', credential);
    return 'accepted';
  }

  /** Whether a tap by `credential` would be accepted now. */
  acceptsCredential(credential: string): boolean {
    if (!this.enforceCredentials) return true;
    const validUntil = this.credentials.get(credential.toLowerCase());
    return validUntil !== undefined && this.clock.now() < validUntil;
  }

  /** A key fob button: motorised move with source `fob`. */
  fob(action: LockAction): void {
    this.startMove(action, 'fob', NO_CREDENTIAL);
  }

  /** The triple-tap lock feature: motorised lock with source `triple_tap`. */
  tripleTap(): void {
    this.startMove('lock', 'triple_tap', NO_CREDENTIAL);
  }

  /** The lock's auto-lock timer fires: motorised lock with source `auto`. */
  autoLock(): void {
    this.startMove('lock', 'auto', NO_CREDENTIAL);
  }

  /**
   * A thumb-turn or key: no motor, so it always succeeds and clears a jam. Recorded as `manual`
   * when the position changes.
   */
  manualTurn(bolt: 'locked' | 'unlocked'): void {
    const wasJammed = this.position === 'jammed';
    this.jamPending = false;
    if (this.position === bolt && !wasJammed) return;
    this.finishMove(bolt === 'locked' ? 'lock' : 'unlock', 'manual', NO_CREDENTIAL);
  }

  /** The next motorised move jams; the bolt then stays jammed until a manual turn. */
  jamNextMove(): void {
    this.jamPending = true;
  }

  /** Sets the battery level (percent) and notifies it. */
  setBattery(percent: number): void {
    this.battery = Math.max(0, Math.min(100, Math.round(percent)));
    this.notify(LockUuids.batteryLevel, encodeBatteryLevel(this.battery));
  }

  /** The lock leaves radio range: open links drop, it stops advertising and answering. */
  goOutOfRange(): void {
    const changed = this.reachable;
    this.reachable = false;
    for (const link of [...this.links]) link.lose();
    if (changed) this.advertisementChanged();
  }

  /** The lock is back in range and advertises again. */
  comeBackInRange(): void {
    const changed = !this.reachable;
    this.reachable = true;
    if (changed) this.advertisementChanged();
  }

  /**
   * A central connects. @throws GattOperationError (`not_connected`) when out of range, which
   * transports report as their own "not found"/"connect failed".
   */
  openLink(): SimulatedLockLink {
    if (!this.reachable) throw new GattOperationError('not_connected', `${this.address} is out of range`);
    const link = new LinkImpl(this);
    this.links.add(link);
    return link;
  }

  /** @internal used by LinkImpl */
  detach(link: LinkImpl): void {
    this.links.delete(link);
  }

  /** @internal used by LinkImpl */
  readCharacteristic(uuid: string): Buffer {
    switch (uuid) {
      case LockUuids.boltState:
        return encodeBoltState({ bolt: this.position, source: this.lastSource });
      case LockUuids.batteryLevel:
        return encodeBatteryLevel(this.battery);
      case LockUuids.manufacturerName:
        return Buffer.from(this.deviceInformation.manufacturer, 'utf8');
      case LockUuids.modelNumber:
        return Buffer.from(this.deviceInformation.model, 'utf8');
      case LockUuids.serialNumber:
        return Buffer.from(this.deviceInformation.serial, 'utf8');
      case LockUuids.firmwareRevision:
        return Buffer.from(this.deviceInformation.firmware, 'utf8');
      default:
        throw new GattOperationError('not_supported', `characteristic ${uuid} is not readable`);
    }
  }

  /** @internal used by LinkImpl */
  writeCharacteristic(uuid: string, value: Buffer): void {
    if (uuid === LockUuids.controlPoint) {
      this.handleControlRequest(value);
    } else if (uuid === LockUuids.activity) {
      this.handleReadSince(value);
    } else if (uuid === LockUuids.credentials) {
      this.handleCredentialRequest(value);
    } else {
      throw new GattOperationError('not_supported', `characteristic ${uuid} is not writable`);
    }
  }

  private handleControlRequest(frame: Buffer): void {
    const header = peekRequestHeader(frame);
    // Too short to even address a response: refuse at the ATT level, like firmware would.
    if (header === undefined) throw new GattOperationError('invalid_length', 'control frame too short');
    const respond = (result: ControlResult): void => {
      this.notify(
        LockUuids.controlPoint,
        encodeControlResponse(
          {
            opcodeByte: header.opcodeByte,
            requestId: header.requestId,
            requestCounter: header.counter,
            result,
            bolt: this.position,
            highestCounter: this.replayGuard.highestAccepted,
          },
          this.key,
        ),
      );
    };
    const decoded = decodeControlRequest(frame, this.key);
    if (!decoded.ok) {
      const result: ControlResult = decoded.reason === 'bad_tag' || decoded.reason === 'unknown_opcode' ? decoded.reason : 'malformed';
      respond(result);
      return;
    }
    if (!this.replayGuard.accept(decoded.value.counter)) {
      respond('stale_counter');
      return;
    }
    if (this.moving) {
      respond('busy');
      return;
    }
    this.startMove(decoded.value.opcode, 'remote', NO_CREDENTIAL, respond);
  }

  private handleCredentialRequest(frame: Buffer): void {
    const header = peekRequestHeader(frame);
    if (header === undefined) throw new GattOperationError('invalid_length', 'credentials frame too short');
    const respond = (result: CredentialResult): void => {
      this.dropExpiredCredentials();
      this.notify(
        LockUuids.credentials,
        encodeCredentialResponse(
          {
            opcodeByte: header.opcodeByte,
            requestId: header.requestId,
            requestCounter: header.counter,
            result,
            listSize: this.credentials.size,
            highestCounter: this.replayGuard.highestAccepted,
          },
          this.key,
        ),
      );
    };
    const decoded = decodeCredentialRequest(frame, this.key);
    if (!decoded.ok) {
      respond(decoded.reason === 'bad_tag' || decoded.reason === 'unknown_opcode' ? decoded.reason : 'malformed');
      return;
    }
    // One high-water mark for Control Point and Credentials: the gateway has one counter per lock.
    if (!this.replayGuard.accept(decoded.value.counter)) {
      respond('stale_counter');
      return;
    }
    // An authenticated list from the gateway: from now on taps are checked against it.
    this.enforceCredentials = true;
    const { opcode, credential, validUntil } = decoded.value;
    switch (opcode) {
      case 'clear':
        this.credentials.clear();
        break;
      case 'revoke':
        this.credentials.delete(credential);
        break;
      case 'allow':
        this.dropExpiredCredentials();
        if (!this.credentials.has(credential) && this.credentials.size >= this.credentialCapacity) {
          respond('list_full');
          return;
        }
        if (validUntil > this.clock.now()) this.credentials.set(credential, validUntil);
        else this.credentials.delete(credential);
        break;
    }
    respond('ok');
  }

  private dropExpiredCredentials(): void {
    const now = this.clock.now();
    for (const [credential, validUntil] of this.credentials) {
      if (validUntil <= now) this.credentials.delete(credential);
    }
  }

  private handleReadSince(frame: Buffer): void {
    const decoded = decodeActivityReadSince(frame);
    if (!decoded.ok) throw new GattOperationError('invalid_length', 'malformed read-since request');
    const since = decoded.value.since;
    const records = this.log.filter((r) => r.sequence > since);
    for (const record of records) this.notify(LockUuids.activity, encodeActivityRecord(record, this.key));
    this.notify(
      LockUuids.activity,
      encodeActivityBacklogEnd({
        highestSequence: this.nextSequence - 1,
        oldestAvailable: this.log[0]?.sequence ?? this.nextSequence,
        sent: records.length,
      }),
    );
  }

  private startMove(action: LockAction, source: ActivitySource, credential: string | null, respond?: (result: ControlResult) => void): void {
    const target: BoltPosition = action === 'lock' ? 'locked' : 'unlocked';
    if (this.moving) return;
    if (this.position === 'jammed') {
      // A jammed bolt does not move under motor power until someone turns it by hand.
      respond?.('jammed');
      return;
    }
    if (this.position === target) {
      respond?.('ok');
      return;
    }
    this.moving = true;
    this.position = 'moving';
    this.lastSource = source;
    this.notifyBolt();
    const settle = (): void => {
      this.moving = false;
      if (this.jamPending) {
        this.jamPending = false;
        this.position = 'jammed';
        this.notifyBolt();
        respond?.('jammed');
      } else {
        this.finishMove(action, source, credential);
        respond?.('ok');
      }
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
    // Zero-latency: the next turn of the event loop (a 0 ms timer would wait about 1 ms).
    if (this.motorTimeMs === 0) setImmediate(settle);
    else setTimeout(settle, this.motorTimeMs);
  }

  private finishMove(action: LockAction, source: ActivitySource, credential: string | null): void {
    this.position = action === 'lock' ? 'locked' : 'unlocked';
    this.lastSource = source;
    const record: ActivityRecord = { sequence: this.nextSequence++, action, source, credential, timestamp: this.clock.now() };
    this.log.push(record);
    if (this.log.length > this.capacity) this.log.shift();
    this.notifyBolt();
    this.notify(LockUuids.activity, encodeActivityRecord(record, this.key));
  }

  private notifyBolt(): void {
    this.notify(LockUuids.boltState, encodeBoltState({ bolt: this.position, source: this.lastSource }));
  }

  private notify(uuid: string, value: Buffer): void {
    for (const link of this.links) link.deliver(uuid, value);
  }

  private advertisementChanged(): void {
    for (const listener of [...this.advertisementListeners]) listener();
  }
}

/** One central's connection; notifications are delivered asynchronously, as over the air. */
class LinkImpl extends SimulatedLinkBase {
  constructor(private readonly lock: SimulatedLock) {
    super();
  }

  read(characteristicUuid: string): Buffer {
    this.assertOpen();
    return this.lock.readCharacteristic(characteristicUuid);
  }

  write(characteristicUuid: string, value: Buffer): void {
    this.assertOpen();
    this.lock.writeCharacteristic(characteristicUuid, value);
  }

  protected closed(): void {
    this.lock.detach(this);
  }

  deliver(uuid: string, value: Buffer): void {
    // setImmediate keeps notifications in order and after the write that caused them returns.
    setImmediate(() => {
      if (this.open) this.listener?.(uuid, value);
    });
  }
}
