import { createHash } from 'node:crypto';
import type { Clock } from '../../../domain/clock.js';
import { NukiCommand } from '../protocol/nuki-commands.js';
import { createNukiKeyPair, randomNukiNonce, type NukiKeyPair } from '../protocol/nuki-crypto.js';
import { encodeErrorReport, type NukiLogEntry } from '../protocol/nuki-messages.js';
import { NUKI_APPLE_COMPANY_ID, encodeNukiBeacon } from '../protocol/nuki-uuids.js';
import { GattOperationError, type SimulatedAdvertisement, type SimulatedDevice, type SimulatedGattService, type SimulatedLockLink } from '../../../gateway/transports/simulator/simulated-device.js';
import { NukiAuthorizationTable, type NukiAuthorization } from './nuki-authorization-table.js';
import { keyturnerGdioErrorReport } from './nuki-gatt-database.js';
import { NukiIndicationLink } from './nuki-indication-link.js';
import type { NukiKeyturnerContext, NukiKeyturnerResponder } from './nuki-keyturner-responder.js';
import { NukiLockLog } from './nuki-lock-log.js';
import type { NukiPairingContext } from './nuki-pairing-responder.js';
import { NukiReplySender } from './nuki-reply-sender.js';
import { noSimulatedNukiFaults, type SimulatedNukiFaults } from './simulated-nuki-faults.js';

/** Signal strength every scan reports, dBm (the simulation has no distance). */
const SIMULATED_RSSI = -65;

/** The characteristics a simulated Nuki device takes writes on. */
export interface NukiDeviceCharacteristics {
  /** The pairing General Data I/O. */
  readonly pairingGdio: string;
  /** The keyturner General Data I/O: no command is defined there, every write gets an Error Report. */
  readonly keyturnerGdio: string;
  /** The keyturner User-Specific Data I/O: the encrypted commands. */
  readonly keyturnerUsdio: string;
}

/** A pairing responder's context, its replies bound to one link's pairing GDIO. */
export interface NukiLinkPairingContext extends NukiPairingContext {
  /** Sends one encrypted reply on the pairing GDIO (API 2.3 pairing). */
  replyEncrypted(sharedKey: Buffer, authorizationId: number, command: number, payload: Buffer): void;
}

/** How to build what every simulated Nuki device shares. */
export interface SimulatedNukiDeviceOptions {
  /** BLE address, `AA:BB:CC:DD:EE:FF` (kept upper-case). */
  address: string;
  /** Advertised name, also the name in Config. */
  name: string;
  clock: Clock;
  /** The device's Nuki ID (u32); default: the last four bytes of the address. */
  nukiId?: number;
  /** What the lock UUID is derived from, with the address (it differs by kind of device). */
  lockUuidSeed: string;
  /** The device's X25519 key pair (default: a fresh one). */
  keyPair?: NukiKeyPair;
  /** Reply frames are cut into indications of at most this many bytes. */
  fragmentSize: number;
  /** How many authorizations it holds, and those it starts with. */
  maxAuthorizations: number;
  authorizations: readonly NukiAuthorization[];
  /** How many log entries it keeps, and the index of the first. */
  logCapacity: number;
  firstLogIndex: number;
  /** How long pairing mode lasts, in ms of `clock`. */
  pairingTimeoutMs: number;
  characteristics: NukiDeviceCharacteristics;
}

/**
 * What every simulated Nuki device (the Smart Lock, the Opener) does alike: its identity, radio
 * range, GATT links (writes routed to the link's pairing responder or to the keyturner), pairing
 * mode, its authorizations and log, and its iBeacon with the new-state flag. A device adds only
 * what differs: its mechanics, its states, its pairing responder and its beacon's service.
 */
export abstract class SimulatedNukiDevice implements SimulatedDevice {
  readonly address: string;
  readonly name: string;
  readonly nukiId: number;
  /** The device's UUID from Authorization-ID (derived from the address). */
  readonly lockUuid: Buffer;
  /** Injectable faults; change any field at any time. */
  readonly faults: SimulatedNukiFaults = noSimulatedNukiFaults();
  abstract readonly gattDatabase: readonly SimulatedGattService[];

  protected readonly clock: Clock;
  private ownKeyPair: NukiKeyPair | undefined;
  protected readonly authorizationTable: NukiAuthorizationTable;
  protected readonly lockLog: NukiLockLog;
  protected readonly sender: NukiReplySender;
  /** Answers the keyturner USDIO (on the link the write came from). */
  protected abstract readonly keyturner: NukiKeyturnerResponder;

  private readonly fragmentSize: number;
  private readonly pairingTimeoutMs: number;
  private readonly characteristics: NukiDeviceCharacteristics;
  private readonly links = new Map<NukiIndicationLink, { handle(frame: Buffer): void }>();
  private readonly advertisementListeners = new Set<() => void>();

  /**
   * The lock's long-term Curve25519 key pair (§4.1), made when first asked for: a new pairing or the
   * public key. A paired lock never needs it, and making one is ~5-10 ms of pure-JS CPU that every
   * start of the demo (its simulated locks are made anew each time) paid before its accessories.
   */
  protected get keyPair(): NukiKeyPair {
    this.ownKeyPair ??= createNukiKeyPair();
    return this.ownKeyPair;
  }
  private reachable = true;
  private newState = false;
  private pairingModeUntil: number | null = null;

  constructor(options: SimulatedNukiDeviceOptions) {
    this.address = options.address.toUpperCase();
    this.name = options.name;
    this.clock = options.clock;
    this.nukiId = options.nukiId ?? Number.parseInt(this.address.replace(/:/g, '').slice(-8), 16);
    this.ownKeyPair = options.keyPair;
    this.lockUuid = createHash('sha256').update(`${options.lockUuidSeed}:${this.address}`).digest().subarray(0, 16);
    this.authorizationTable = new NukiAuthorizationTable(options.maxAuthorizations, options.authorizations);
    this.lockLog = new NukiLockLog(options.logCapacity, options.firstLogIndex);
    this.sender = new NukiReplySender(this.faults, () => this.nonce32());
    this.fragmentSize = options.fragmentSize;
    this.pairingTimeoutMs = options.pairingTimeoutMs;
    this.characteristics = options.characteristics;
  }

  /** Resolves when nothing the device does itself (a motor, a strike) is under way. */
  abstract idle(): Promise<void>;

  /** The responder on a new link's pairing GDIO. */
  protected abstract pairingResponder(context: NukiLinkPairingContext): { handle(frame: Buffer): void };

  /** The service UUID the iBeacon shows now. */
  protected abstract beaconServiceUuid(): string;

  /** True while the device is within radio range (advertising and answering). */
  get inRange(): boolean {
    return this.reachable;
  }

  /** True while the beacon flags a new state or log entry (measured power −59). */
  get newStateFlagged(): boolean {
    return this.newState;
  }

  /** The log, oldest first (as Log Entry messages carry it). */
  get log(): readonly NukiLogEntry[] {
    return this.lockLog.all;
  }

  /** The authorizations, by id (without their keys). */
  get authorizations(): readonly Omit<NukiAuthorization, 'sharedKey'>[] {
    return this.authorizationTable.list();
  }

  /** Number of open GATT links. */
  get connectionCount(): number {
    return this.links.size;
  }

  /** Resolves when the device is idle and every reply queued on every link has been delivered. */
  async settled(): Promise<void> {
    await this.idle();
    await Promise.all([...this.links.keys()].map((link) => link.drained()));
  }

  /** The user held the button for 5 s: pairing is accepted for `pairingTimeoutMs`. */
  startPairingMode(): void {
    this.pairingModeUntil = this.clock.now() + this.pairingTimeoutMs;
  }

  /** The device leaves radio range: open links are lost, it stops advertising and answering. */
  goOutOfRange(): void {
    if (!this.reachable) return;
    this.reachable = false;
    for (const link of [...this.links.keys()]) link.lose();
    this.advertisementChanged();
  }

  /** The device is back in range and advertises again. */
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
    const { pairingGdio } = this.characteristics;
    // Read only when a client pairs: connecting does not make the key pair.
    const keyPair = (): NukiKeyPair => this.keyPair;
    const pairing = this.pairingResponder({
      inPairingMode: () => this.inPairingMode,
      get keyPair() {
        return keyPair();
      },
      lockUuid: this.lockUuid,
      authorizations: this.authorizationTable,
      nonce32: () => this.nonce32(),
      completePairing: (entry) => {
        this.authorizationTable.add(entry);
        this.pairingModeUntil = null;
      },
      reply: (command, payload) => {
        this.sender.unencrypted(link, pairingGdio, command, payload);
      },
      replyEncrypted: (sharedKey, authorizationId, command, payload) => {
        this.sender.encrypted(link, pairingGdio, sharedKey, authorizationId, command, payload);
      },
    });
    this.links.set(link, pairing);
    return link;
  }

  /** An iBeacon with the device's service UUID; measured power −59 while something new is unread. */
  advertisement(): SimulatedAdvertisement | null {
    if (!this.reachable) return null;
    const beacon = encodeNukiBeacon({ newState: this.newState, major: this.nukiId >>> 16, minor: this.nukiId & 0xffff, serviceUuid: this.beaconServiceUuid() });
    return { manufacturerData: new Map([[NUKI_APPLE_COMPANY_ID, beacon]]), rssi: SIMULATED_RSSI };
  }

  onAdvertisementChange(listener: () => void): () => void {
    const wrapped = (): void => {
      listener();
    };
    this.advertisementListeners.add(wrapped);
    return () => this.advertisementListeners.delete(wrapped);
  }

  /** True while the device accepts a new pairing. */
  protected get inPairingMode(): boolean {
    return this.pairingModeUntil !== null && this.clock.now() < this.pairingModeUntil;
  }

  /** A fresh 32-byte nonce (challenges, and the first 24 bytes for encrypted frames); random unless a device injects its source. */
  protected nonce32(): Buffer {
    return randomNukiNonce(32);
  }

  /** What the keyturner responder needs that every device answers alike. */
  protected keyturnerContext(): Pick<NukiKeyturnerContext, 'authorizations' | 'faults' | 'sender' | 'nonce32' | 'keyturnerStatesRead' | 'selectLog'> {
    return {
      authorizations: this.authorizationTable,
      faults: this.faults,
      sender: this.sender,
      nonce32: () => this.nonce32(),
      keyturnerStatesRead: () => {
        this.setNewState(false);
      },
      selectLog: (startIndex, sortOrder) => this.lockLog.select(startIndex, sortOrder),
    };
  }

  /** Appends a log entry (a new entry sets the beacon flag). */
  protected appendLog(entry: Omit<NukiLogEntry, 'index'>): void {
    this.lockLog.append(entry);
    this.markNewState();
  }

  /** Appends a Lock Action entry by `actor`, dated now. */
  protected appendLockAction(actor: { id: number; name: string }, action: number, trigger: number, completionStatus: number): void {
    this.appendLog({
      timestamp: this.clock.now(),
      authorizationId: actor.id,
      name: actor.name,
      detail: { kind: 'lock_action', action, trigger, flags: 0, completionStatus, trailing: Buffer.alloc(0) },
    });
  }

  /** Something new happened: the beacon flags it until a central reads the Keyturner States. */
  protected markNewState(): void {
    this.setNewState(true);
  }

  /** Tells every advertisement listener that the advertisement may have changed. */
  protected advertisementChanged(): void {
    for (const listener of [...this.advertisementListeners]) listener();
  }

  private setNewState(value: boolean): void {
    if (this.newState === value) return;
    this.newState = value;
    this.advertisementChanged();
  }

  private handleWrite(link: NukiIndicationLink, uuid: string, value: Buffer): void {
    if (value.length === 0) throw new GattOperationError('invalid_length', 'empty write');
    const { pairingGdio, keyturnerUsdio, keyturnerGdio } = this.characteristics;
    switch (uuid) {
      case pairingGdio:
        this.links.get(link)?.handle(value);
        return;
      case keyturnerUsdio:
        this.keyturner.handle(link, value);
        return;
      case keyturnerGdio:
        this.sender.unencrypted(link, uuid, NukiCommand.errorReport, encodeErrorReport(keyturnerGdioErrorReport(value)));
        return;
      default:
        throw new GattOperationError('not_supported', `characteristic ${uuid} is not writable`);
    }
  }
}
