import { randomBytes, randomInt } from 'node:crypto';
import type { Clock } from '../../../domain/clock.js';
import {
  GattOperationError,
  SimulatedLinkBase,
  type SimulatedAdvertisement,
  type SimulatedDevice,
  type SimulatedGattService,
  type SimulatedLockLink,
} from '../../../gateway/transports/simulator/simulated-device.js';
import { DEVICE_INFORMATION_SERVICE, FIRMWARE_REVISION, MANUFACTURER_NAME, MODEL_NUMBER, TTLOCK_NOTIFY, TTLOCK_SERVICE, TTLOCK_WRITE } from '../driver/ttlock-gatt-profile.js';
import { encodeTtlockAdvertisement, TtlockAdvertFlag } from '../protocol/ttlock-advertisement.js';
import { encodeTtlockReply, TtlockCommand, TtlockError } from '../protocol/ttlock-commands.js';
import { TtlockLogType } from '../protocol/ttlock-operation-log.js';
import { TTLOCK_FACTORY_KEY, TtlockCipherError } from '../protocol/ttlock-crypto.js';
import { decryptTtlockFrame, DEFAULT_TTLOCK_VERSION, encodeTtlockFrame, parseTtlockFrame, TtlockFrameError, type TtlockLockVersion } from '../protocol/ttlock-frame.js';
import { TtlockFrameReassembler } from '../protocol/ttlock-frame-reassembler.js';
import { TtlockPasscodeType, type TtlockPasscode } from '../protocol/ttlock-passcodes.js';
import { wallClockAt, wallClockMs, wallClockOfMs, type WallClock } from '../protocol/ttlock-wall-clock.js';
import { TtlockLockLog, type TtlockLogEntry } from './ttlock-lock-log.js';
import { TtlockPasscodeStore } from './ttlock-passcode-store.js';
import { respondToTtlockRequest } from './ttlock-command-responder.js';
import type { SimulatedTtlockFaults, SimulatedTtlockOptions, TtlockAdminSecrets } from './simulated-ttlock-options.js';

export type { SimulatedTtlockFaults, SimulatedTtlockOptions, TtlockAdminSecrets } from './simulated-ttlock-options.js';

const GATT_DATABASE: readonly SimulatedGattService[] = [
  {
    uuid: TTLOCK_SERVICE,
    characteristics: [
      { uuid: TTLOCK_WRITE, flags: ['write', 'write-without-response'] },
      { uuid: TTLOCK_NOTIFY, flags: ['notify'] },
    ],
  },
  {
    uuid: DEVICE_INFORMATION_SERVICE,
    characteristics: [
      { uuid: MANUFACTURER_NAME, flags: ['read'] },
      { uuid: MODEL_NUMBER, flags: ['read'] },
      { uuid: FIRMWARE_REVISION, flags: ['read'] },
    ],
  },
];

/** What a keypad entry did. */
export type TtlockKeypadResult = 'unlocked' | 'locked' | 'refused';

/**
 * The lock side of a TTLock V3 (docs/design.md §4f), in memory, speaking the real frames: AES
 * under the factory key until pairing gives it its own, the admin login and challenge answers,
 * lock and unlock, the status, its own wall clock (no zone; set by TIME_CALIBRATE), passcodes with
 * one window, the operation log read by explicit sequence, setting mode after a touch of the
 * keypad, the advertisement (bolt, "new records", setting mode, battery) and the link it drops
 * after about 5 s without a write. It judges keypad entries itself, on its own clock, against the
 * passcodes it holds. Like every simulated device it changes only when driven.
 *
 * What it cannot sense, it does not: a turn by hand moves the bolt but not the lock's idea of it
 * (`bolt` stays, `physicalBolt` moves), and nothing is logged (ttlock-rs §7a).
 */
export class SimulatedTtlock implements SimulatedDevice {
  readonly gattDatabase = GATT_DATABASE;
  readonly address: string;
  readonly name: string;
  readonly timeZone: string;
  readonly faults: SimulatedTtlockFaults = { silent: false, ignoreBoltCommands: false, refuseCommands: [], dropBeforeAnswer: 0, badCrcNext: false };
  readonly passcodeStore: TtlockPasscodeStore;
  readonly log: TtlockLockLog;
  readonly version: TtlockLockVersion;
  readonly model: string;
  readonly firmware: string;
  readonly idleDropMs: number;
  protected readonly clock: Clock;
  /** The lock's own idea of its bolt: where its motor last drove it. */
  private motorBolt: 'locked' | 'unlocked';
  /** Where the bolt really is (a turn by hand moves only this). */
  private actualBolt: 'locked' | 'unlocked';
  private battery: number;
  private jamNext = false;
  private jammed = false;
  private reachable = true;
  /** Its wall clock runs this far from the injected clock's UTC, ms ({@link wallClockMs} scale). */
  private clockOffsetMs: number;
  private admin: TtlockAdminSecrets | null;
  /** The key GET_AES_KEY gave out, waiting for ADD_ADMIN. */
  private pendingKey: Buffer | null = null;
  private settingModeUntil: number | null = null;
  private adminKeypadCode: string | null = null;
  private readonly settingModeMs: number;
  private readonly notifyChunk: number;
  private readonly newKey: () => Buffer;
  private readonly links = new Set<TtlockSimulatedLink>();
  private readonly advertisementListeners = new Set<() => void>();

  constructor(options: SimulatedTtlockOptions) {
    this.address = options.address.toUpperCase();
    this.name = options.name;
    this.clock = options.clock;
    this.timeZone = options.timeZone;
    this.admin = options.paired === undefined ? null : { ...options.paired, aesKey: Buffer.from(options.paired.aesKey) };
    this.version = options.version ?? DEFAULT_TTLOCK_VERSION;
    this.motorBolt = options.bolt ?? 'locked';
    this.actualBolt = this.motorBolt;
    this.battery = clampPercent(options.batteryPercent ?? 100);
    this.log = new TtlockLockLog(options.firstLogNumber ?? 1, options.logCapacity ?? 500);
    this.passcodeStore = new TtlockPasscodeStore(options.passcodeCapacity);
    this.idleDropMs = options.idleDropMs ?? 5_000;
    this.settingModeMs = options.settingModeMs ?? 15_000;
    this.notifyChunk = options.notifyChunk ?? 20;
    this.newKey = options.newKey ?? ((): Buffer => randomBytes(16));
    this.model = options.model ?? 'TTLock keypad deadbolt (simulated)';
    this.firmware = options.firmware ?? '6.1.21';
    this.clockOffsetMs = wallClockMs(wallClockAt(this.clock.now(), this.timeZone)) - this.clock.now();
  }

  get inRange(): boolean {
    return this.reachable;
  }

  /** The lock's own idea of its bolt (what it advertises and reports). */
  get bolt(): 'locked' | 'unlocked' {
    return this.motorBolt;
  }

  /** Where the bolt really is. */
  get physicalBolt(): 'locked' | 'unlocked' {
    return this.actualBolt;
  }

  get batteryPercent(): number {
    return this.battery;
  }

  get isJammed(): boolean {
    return this.jammed;
  }

  /** The admin secrets it holds, or null while unpaired. */
  get adminSecrets(): TtlockAdminSecrets | null {
    return this.admin === null ? null : { ...this.admin, aesKey: Buffer.from(this.admin.aesKey) };
  }

  get paired(): boolean {
    return this.admin !== null;
  }

  /** In setting mode now (touched, unpaired, not timed out). */
  get inSettingMode(): boolean {
    return this.admin === null && this.settingModeUntil !== null && this.clock.now() < this.settingModeUntil;
  }

  /** What its wall clock shows now. */
  lockTime(): WallClock {
    return wallClockOfMs(this.clock.now() + this.clockOffsetMs);
  }

  /** Sets its wall clock (TIME_CALIBRATE). */
  setLockTime(time: WallClock): void {
    this.clockOffsetMs = wallClockMs(time) - this.clock.now();
  }

  /** Its clock shows the zone's local time `offsetS` seconds off (the demo's `lock_clock`). */
  setClockOffset(offsetS: number): void {
    this.clockOffsetMs = wallClockMs(wallClockAt(this.clock.now(), this.timeZone)) - this.clock.now() + offsetS * 1_000;
  }

  /** The admin's keypad code set at pairing, or null. */
  get adminCode(): string | null {
    return this.adminKeypadCode;
  }

  openLink(): SimulatedLockLink {
    if (!this.reachable) throw new GattOperationError('not_connected', 'out of range');
    const link = new TtlockSimulatedLink(this, this.idleDropMs);
    this.links.add(link);
    return link;
  }

  advertisement(): SimulatedAdvertisement | null {
    if (!this.reachable) return null;
    let params = 0;
    if (this.motorBolt === 'unlocked') params |= TtlockAdvertFlag.unlocked;
    if (this.log.unread) params |= TtlockAdvertFlag.newRecords;
    if (this.inSettingMode) params |= TtlockAdvertFlag.settingMode;
    const { companyId, data } = encodeTtlockAdvertisement({ scene: this.version.scene, params, battery: this.battery, address: this.address });
    return { manufacturerData: new Map([[companyId, data]]), rssi: -62 };
  }

  onAdvertisementChange(listener: () => void): () => void {
    this.advertisementListeners.add(listener);
    return () => this.advertisementListeners.delete(listener);
  }

  goOutOfRange(): void {
    this.reachable = false;
    for (const link of [...this.links]) link.lose();
    this.advertise();
  }

  comeBackInRange(): void {
    this.reachable = true;
    this.advertise();
  }

  /** A touch of its keypad: an unpaired lock wakes in setting mode for a while (docs/ttlock.md "Pairing"). */
  touchKeypad(): void {
    if (this.admin !== null) return;
    this.settingModeUntil = this.clock.now() + this.settingModeMs;
    this.advertise();
  }

  /** Factory reset: no admin, no passcodes, the factory key, a log that starts again. */
  factoryReset(): void {
    this.admin = null;
    this.pendingKey = null;
    this.adminKeypadCode = null;
    this.passcodeStore.clear();
    for (const link of [...this.links]) link.lose();
    this.advertise();
  }

  /** A turn by hand: the bolt moves; the lock does not notice, logs nothing, advertises nothing new. A jam is freed. */
  manualTurn(bolt: 'locked' | 'unlocked'): void {
    this.actualBolt = bolt;
    this.jammed = false;
  }

  setBattery(percent: number): void {
    this.battery = clampPercent(percent);
    this.advertise();
  }

  /** The next motorised move fails ("operation failed") and the bolt stays stuck until turned by hand. */
  jamNextMove(): void {
    this.jamNext = true;
  }

  /** Someone types `code` at the keypad and presses unlock (or lock); the lock judges it on its own clock. */
  typeCode(code: string, action: 'lock' | 'unlock'): TtlockKeypadResult {
    const now = this.lockTime();
    if (this.adminKeypadCode !== null && code === this.adminKeypadCode && action === 'unlock') {
      if (!this.move('unlocked')) return 'refused';
      this.append({ type: TtlockLogType.adminCodeUnlock, passcode: code });
      return 'unlocked';
    }
    const judged = this.passcodeStore.judge(code, now);
    if (judged !== 'valid') {
      this.append({ type: judged === 'outside_window' ? TtlockLogType.passcodeExpired : TtlockLogType.wrongPasscode, passcode: code });
      return 'refused';
    }
    const target = action === 'unlock' ? 'unlocked' : 'locked';
    if (!this.move(target)) return 'refused';
    this.append({ type: action === 'unlock' ? TtlockLogType.passcodeUnlock : TtlockLogType.passcodeLock, passcode: code });
    return target;
  }

  /** A code made in the vendor's app (a permanent passcode). @throws TtlockRefusal */
  addVendorCode(code: string): void {
    this.passcodeStore.add({ type: TtlockPasscodeType.permanent, code, start: { year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0 }, end: null });
  }

  passcodes(): TtlockPasscode[] {
    return this.passcodeStore.list();
  }

  logEntries(): TtlockLogEntry[] {
    return this.log.all();
  }

  /** Resolves once whatever it is doing has finished (its motor moves at once). */
  idle(): Promise<void> {
    return Promise.resolve();
  }

  // ---- What the command responder (ttlock-command-responder.ts) works on. ----

  /** The key it reads and answers with now: its own, the one it just gave out, or the factory key. */
  currentKey(): Buffer {
    return this.admin?.aesKey ?? this.pendingKey ?? TTLOCK_FACTORY_KEY;
  }

  get adminHeld(): TtlockAdminSecrets | null {
    return this.admin;
  }

  /** GET_AES_KEY in setting mode: a fresh key, used from the next frame on. */
  issueKey(): Buffer {
    this.pendingKey = this.newKey();
    return Buffer.from(this.pendingKey);
  }

  /** ADD_ADMIN under the issued key: the lock is paired. */
  bindAdmin(adminPs: number, unlockKey: number): boolean {
    if (this.pendingKey === null) return false;
    this.admin = { aesKey: this.pendingKey, adminPs, unlockKey };
    this.pendingKey = null;
    this.advertise();
    return true;
  }

  /** OPERATE_FINISHED: setting mode ends. */
  finishSetup(): void {
    this.settingModeUntil = null;
    this.advertise();
  }

  setAdminKeypadCode(code: string): void {
    this.adminKeypadCode = code;
  }

  /** A motorised move by a command: false when it jammed (logged as "app unlock failed, lock reversed"). */
  commandMove(target: 'locked' | 'unlocked', uid: number, recordId: number): boolean {
    if (!this.move(target)) {
      this.append({ type: 41, uid, recordId });
      return false;
    }
    this.append({ type: target === 'unlocked' ? TtlockLogType.appUnlock : TtlockLogType.bluetoothLock, uid, recordId });
    return true;
  }

  /** A challenge: a random u32. */
  challenge(): number {
    return randomInt(1, 0xffff_ffff);
  }

  /** Sends a reply frame on the link, in notification chunks. */
  reply(link: TtlockSimulatedLink, command: number, plaintext: Buffer, key: Buffer): void {
    let frame = encodeTtlockFrame(this.version, command, plaintext, key);
    if (this.faults.badCrcNext) {
      this.faults.badCrcNext = false;
      frame = Buffer.from(frame);
      const crcAt = frame.length - 3;
      frame[crcAt] = (frame[crcAt] ?? 0) ^ 0xff;
    }
    link.deliver(frame, this.notifyChunk);
  }

  /** One whole frame the central wrote on a link. */
  received(link: TtlockSimulatedLink, bytes: Buffer): void {
    if (this.faults.silent) return;
    let key = this.currentKey();
    let plaintext: Buffer;
    let command: number;
    try {
      const frame = parseTtlockFrame(bytes);
      // A real lock drops a frame whose CRC does not match (ttlock-rs): so does this one.
      if (!frame.crcOk) return;
      command = frame.command;
      try {
        plaintext = decryptTtlockFrame(frame, key);
      } catch (error) {
        // An app that takes a paired lock for a new one speaks the factory key: it is answered under it (and refused).
        if (!(error instanceof TtlockCipherError) || key.equals(TTLOCK_FACTORY_KEY)) throw error;
        plaintext = decryptTtlockFrame(frame, TTLOCK_FACTORY_KEY);
        key = TTLOCK_FACTORY_KEY;
      }
    } catch (error) {
      if (error instanceof TtlockFrameError || error instanceof TtlockCipherError) return;
      throw error;
    }
    if (this.admin !== null && key === TTLOCK_FACTORY_KEY) {
      // Paired: nothing is done under the factory key ("not in setting mode", readable by the app that tried).
      this.reply(link, TtlockCommand.response, encodeTtlockReply(command, { errorCode: TtlockError.notInSettingMode }), TTLOCK_FACTORY_KEY);
      return;
    }
    if (this.faults.refuseCommands.includes(command)) {
      this.reply(link, TtlockCommand.response, encodeTtlockReply(command, { errorCode: TtlockError.invalidCommand }), key);
      return;
    }
    const boltCommand = command === TtlockCommand.unlock || command === TtlockCommand.lock;
    if (boltCommand && this.faults.ignoreBoltCommands) return;
    if (this.faults.dropBeforeAnswer > 0 && boltCommand) {
      this.faults.dropBeforeAnswer -= 1;
      link.lose();
      return;
    }
    respondToTtlockRequest(this, link, command, plaintext, key);
  }

  detach(link: TtlockSimulatedLink): void {
    this.links.delete(link);
  }

  /** Appends a record at the lock's clock and battery; the advertisement says there is news. */
  append(record: { type: number; uid?: number; recordId?: number; passcode?: string }): void {
    this.log.append({ ...record, time: this.lockTime(), battery: this.battery });
    this.advertise();
  }

  /** Tells the transports the advertisement changed. */
  advertise(): void {
    for (const listener of [...this.advertisementListeners]) listener();
  }

  private move(target: 'locked' | 'unlocked'): boolean {
    if (this.jammed) return false;
    if (this.jamNext) {
      this.jamNext = false;
      this.jammed = true;
      return false;
    }
    this.motorBolt = target;
    this.actualBolt = target;
    this.advertise();
    return true;
  }
}

/** Per-link state of the session: the challenge given out, the admin login, the uid that logged in. */
export class TtlockSimulatedLink extends SimulatedLinkBase {
  private readonly reassembler = new TtlockFrameReassembler();
  private idleTimer: NodeJS.Timeout | null = null;
  /** The challenge last given out (single use). */
  ps: number | null = null;
  /** The admin logged in (CHECK_RANDOM answered right). */
  loggedIn = false;
  uid = 0;
  /** This link paired the lock: its setup steps need no login. */
  pairing = false;

  constructor(
    private readonly lock: SimulatedTtlock,
    private readonly idleDropMs: number,
  ) {
    super();
    this.armIdleDrop();
  }

  read(characteristicUuid: string): Buffer {
    this.assertOpen();
    if (characteristicUuid === MANUFACTURER_NAME) return Buffer.from('Sciener', 'utf8');
    if (characteristicUuid === MODEL_NUMBER) return Buffer.from(this.lock.model, 'utf8');
    if (characteristicUuid === FIRMWARE_REVISION) return Buffer.from(this.lock.firmware, 'utf8');
    throw new GattOperationError('not_supported', 'not readable');
  }

  write(characteristicUuid: string, value: Buffer): void {
    this.assertOpen();
    if (characteristicUuid !== TTLOCK_WRITE) throw new GattOperationError('not_supported', 'not writable');
    this.armIdleDrop();
    for (const frame of this.reassembler.push(Buffer.from(value))) {
      setImmediate(() => {
        if (this.open) this.lock.received(this, frame);
      });
    }
  }

  /** Sends one frame as notifications of at most `chunk` bytes, in order. */
  deliver(frame: Buffer, chunk: number): void {
    const listener = this.listener;
    if (listener === undefined) return;
    const parts: Buffer[] = [];
    for (let at = 0; at < frame.length; at += chunk) parts.push(frame.subarray(at, at + chunk));
    setImmediate(() => {
      for (const part of parts) if (this.open) listener(TTLOCK_NOTIFY, part);
    });
  }

  protected closed(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.lock.detach(this);
  }

  /** The lock drops a link that stays silent for its idle period. */
  private armIdleDrop(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      this.lose();
    }, this.idleDropMs);
    this.idleTimer.unref();
  }
}

function clampPercent(value: number): number {
  return Math.max(0, Math.min(100, Math.round(value)));
}
