import { createHash } from 'node:crypto';
import type { Clock } from '../../../domain/clock.js';
import { NukiCommand } from '../protocol/nuki-commands.js';
import { createNukiKeyPair, type NukiKeyPair } from '../protocol/nuki-crypto.js';
import { encodeErrorReport, type NukiLogEntry } from '../protocol/nuki-messages.js';
import { NUKI_APPLE_COMPANY_ID, encodeNukiBeacon } from '../protocol/nuki-uuids.js';
import { GattOperationError, type SimulatedAdvertisement, type SimulatedLockLink } from '../../../gateway/simulator/simulated-device.js';
import { NukiAuthorizationTable, type NukiAuthorization } from './nuki-authorization-table.js';
import { keyturnerGdioErrorReport } from './nuki-gatt-database.js';
import { NukiIndicationLink } from './nuki-indication-link.js';
import type { NukiKeyturnerContext } from './nuki-keyturner-responder.js';
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

/** How to build the core of a simulated Nuki device. */
export interface NukiDeviceCoreOptions {
  /** BLE address, `AA:BB:CC:DD:EE:FF` (kept upper-case). */
  address: string;
  clock: Clock;
  /** The device's Nuki ID (u32); default: the last four bytes of the address. */
  nukiId?: number;
  /** What the lock UUID is derived from, with the address (it differs by kind of device). */
  lockUuidSeed: string;
  /** The device's X25519 key pair (default: a fresh one). */
  keyPair?: NukiKeyPair;
  /** A fresh 32-byte nonce (challenges, and the first 24 bytes for encrypted frames). */
  nonce32(): Buffer;
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
  /** The responder on a new link's pairing GDIO. */
  pairingResponder(context: NukiLinkPairingContext): { handle(frame: Buffer): void };
  /** A write on the keyturner USDIO (the device's keyturner responder answers on the same link). */
  keyturnerWrite(link: NukiIndicationLink, value: Buffer): void;
}

/**
 * What every simulated Nuki device (the Smart Lock, the Opener) does alike: its identity, radio
 * range, GATT links (writes routed to the link's pairing responder or to the keyturner), pairing
 * mode, its authorizations and log, and its iBeacon with the new-state flag. Each device keeps
 * only what differs: its mechanics, its states and its beacon's service.
 */
export class NukiDeviceCore {
  readonly address: string;
  readonly nukiId: number;
  /** The device's UUID from Authorization-ID (derived from the address). */
  readonly lockUuid: Buffer;
  readonly keyPair: NukiKeyPair;
  /** Injectable faults; change any field at any time. */
  readonly faults: SimulatedNukiFaults = noSimulatedNukiFaults();
  readonly authorizations: NukiAuthorizationTable;
  readonly log: NukiLockLog;
  readonly sender: NukiReplySender;

  private readonly clock: Clock;
  private readonly options: NukiDeviceCoreOptions;
  private readonly links = new Map<NukiIndicationLink, { handle(frame: Buffer): void }>();
  private readonly advertisementListeners = new Set<() => void>();
  private reachable = true;
  private newState = false;
  private pairingModeUntil: number | null = null;

  constructor(options: NukiDeviceCoreOptions) {
    this.options = options;
    this.clock = options.clock;
    this.address = options.address.toUpperCase();
    this.nukiId = options.nukiId ?? Number.parseInt(this.address.replace(/:/g, '').slice(-8), 16);
    this.keyPair = options.keyPair ?? createNukiKeyPair();
    this.lockUuid = createHash('sha256').update(`${options.lockUuidSeed}:${this.address}`).digest().subarray(0, 16);
    this.authorizations = new NukiAuthorizationTable(options.maxAuthorizations, options.authorizations);
    this.log = new NukiLockLog(options.logCapacity, options.firstLogIndex);
    this.sender = new NukiReplySender(this.faults, () => options.nonce32());
  }

  /** True while the device is within radio range (advertising and answering). */
  get inRange(): boolean {
    return this.reachable;
  }

  /** True while the beacon flags a new state or log entry (measured power −59). */
  get newStateFlagged(): boolean {
    return this.newState;
  }

  /** Number of open GATT links. */
  get connectionCount(): number {
    return this.links.size;
  }

  /** True while the device accepts a new pairing. */
  get inPairingMode(): boolean {
    return this.pairingModeUntil !== null && this.clock.now() < this.pairingModeUntil;
  }

  /** The user held the button for 5 s: pairing is accepted for `pairingTimeoutMs`. */
  startPairingMode(): void {
    this.pairingModeUntil = this.clock.now() + this.options.pairingTimeoutMs;
  }

  /** What the keyturner responder needs that every device answers alike. */
  keyturnerContext(): Pick<NukiKeyturnerContext, 'authorizations' | 'faults' | 'sender' | 'nonce32' | 'keyturnerStatesRead' | 'selectLog'> {
    return {
      authorizations: this.authorizations,
      faults: this.faults,
      sender: this.sender,
      nonce32: () => this.options.nonce32(),
      keyturnerStatesRead: () => {
        this.setNewState(false);
      },
      selectLog: (startIndex, sortOrder) => this.log.select(startIndex, sortOrder),
    };
  }

  /** Appends a log entry (a new entry sets the beacon flag). */
  appendLog(entry: Omit<NukiLogEntry, 'index'>): void {
    this.log.append(entry);
    this.markNewState();
  }

  /** Appends a Lock Action entry by `actor`, dated now. */
  appendLockAction(actor: { id: number; name: string }, action: number, trigger: number, completionStatus: number): void {
    this.appendLog({
      timestamp: this.clock.now(),
      authorizationId: actor.id,
      name: actor.name,
      detail: { kind: 'lock_action', action, trigger, flags: 0, completionStatus, trailing: Buffer.alloc(0) },
    });
  }

  /** Resolves when every reply queued on every link has been delivered. */
  async drained(): Promise<void> {
    await Promise.all([...this.links.keys()].map((link) => link.drained()));
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
      this.options.fragmentSize,
    );
    const { pairingGdio } = this.options.characteristics;
    const pairing = this.options.pairingResponder({
      inPairingMode: () => this.inPairingMode,
      keyPair: this.keyPair,
      lockUuid: this.lockUuid,
      authorizations: this.authorizations,
      nonce32: () => this.options.nonce32(),
      completePairing: (entry) => {
        this.authorizations.add(entry);
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

  /** An iBeacon with `serviceUuid`; measured power −59 while something new is unread. Null out of range. */
  advertisement(serviceUuid: string): SimulatedAdvertisement | null {
    if (!this.reachable) return null;
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

  /** Something new happened: the beacon flags it until a central reads the Keyturner States. */
  markNewState(): void {
    this.setNewState(true);
  }

  /** Tells every advertisement listener that the advertisement may have changed. */
  advertisementChanged(): void {
    for (const listener of [...this.advertisementListeners]) listener();
  }

  private setNewState(value: boolean): void {
    if (this.newState === value) return;
    this.newState = value;
    this.advertisementChanged();
  }

  private handleWrite(link: NukiIndicationLink, uuid: string, value: Buffer): void {
    if (value.length === 0) throw new GattOperationError('invalid_length', 'empty write');
    const { pairingGdio, keyturnerUsdio, keyturnerGdio } = this.options.characteristics;
    switch (uuid) {
      case pairingGdio:
        this.links.get(link)?.handle(value);
        return;
      case keyturnerUsdio:
        this.options.keyturnerWrite(link, value);
        return;
      case keyturnerGdio:
        this.sender.unencrypted(link, uuid, NukiCommand.errorReport, encodeErrorReport(keyturnerGdioErrorReport(value)));
        return;
      default:
        throw new GattOperationError('not_supported', `characteristic ${uuid} is not writable`);
    }
  }
}
