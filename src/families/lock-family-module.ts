import type { Clock } from '../domain/clock.js';
import type { GattTransport } from '../gateway/gatt-transport.js';
import type { GatewayLogger } from '../gateway/gateway-logger.js';
import type { LockDriver } from '../gateway/lock-driver.js';
import type { SimulatedDevice } from '../gateway/transports/simulator/simulated-device.js';
import type { Logger } from '../logger.js';
import type { LockRecord } from '../store/lock-repository.js';

/**
 * The heavy part of a lock family (its descriptor's `load()`): what only the service thread, the
 * CLI and the settings page's server run. Every facet but the drivers is optional; shared code
 * asks for a facet and never which family it is (docs/architecture.md "Lock families").
 */
export interface LockFamilyModule {
  /** The driver factory for one service's life; it reads the family's credential files at most once. */
  driverFactory(context: FamilyDriverContext): (lock: LockRecord & { bleAddress: string }) => LockDriver | null;
  /**
   * Families whose locks keep their own users: the links of one config `locks[]` entry from the
   * lock-side user's name to the e-mail of one of our users (docs/design.md §4b).
   */
  userLinks?(entry: Readonly<Record<string, unknown>>): ReadonlyMap<string, string>;
  /** Names of the family's secret files in the data folder (kept 0600 like every file there). */
  readonly secretFiles?: readonly string[];
  /** Scanning for and pairing with its devices, as data (the CLI prints it, the settings page shows it). */
  readonly pairing?: FamilyPairing;
  /** `ekey-locks <descriptor.cli.name> …` */
  cli?(args: string[]): Promise<void>;
  /** Its locks in the demo household, simulated (docs/design.md §6). */
  readonly demo?: FamilyDemo;
}

/** What a family's drivers may read, given by the lock subsystem. */
export interface FamilyDriverContext {
  /** The data folder, which holds the family's credential files; undefined without one (tests). */
  dataDir: string | undefined;
  logger: Logger;
  /** The secrets of the demo's simulated locks (what pairing would have stored), by address; only in the demo. */
  demoSecrets?: (address: string) => DemoLockSecrets | undefined;
}

/** How pairing reports and reaches the radio (the CLI prints to a terminal; the settings page pushes lines to the page). */
export interface PairingIo {
  /** One line of progress, for a person. */
  progress(line: string): void;
  /** A warning the person must read (printed to stderr by the CLI). */
  warn(line: string): void;
  /** The host's Bluetooth; it reports what goes wrong underneath (no bus, a scan that cannot start) to `logger`. */
  transport(adapter: string | undefined, logger: GatewayLogger): GattTransport;
}

/** One device a scan heard, and what it is. */
export interface ScannedDevice {
  /** Upper case. */
  address: string;
  rssi: number | null;
  /** For people: "Nuki Smart Lock 1.0–4.0", "Nuki Opener". */
  model: string;
  /** The protocol level where the family has several ("2.2"), or null. */
  apiLevel: string | null;
  /** The config `family` it is added with (a family's scan may find devices of a sibling family). */
  family: string;
  /** Pairing needs the device's PIN. */
  pinRequired: boolean;
  /** docs/design.md §4e: the gateway device that heard it (`host` or a Bluetooth proxy's name), where the radio tags it. */
  gateway?: string;
}

export interface ScanOptions {
  seconds: number;
  adapter?: string;
}

export interface PairOptions {
  address: string;
  /** Our name in the device's own user list. */
  name?: string;
  /** The device's PIN, as typed. */
  pin?: string;
  timeoutS?: number;
  /** Where the credentials are stored (mode 0600). */
  dataDir: string;
  adapter?: string;
  /** Families that can pair in another role (a Nuki as a bridge): the CLI's `--as-bridge`. */
  asBridge?: boolean;
}

/** What a pairing made: the `locks[]` entry to add to the config (owner's e-mail to be filled in). */
export interface PairedDevice {
  entry: Record<string, unknown>;
}

export interface FamilyPairing {
  /** @throws BluetoothUnavailable (src/families/pairing-errors.ts) when nothing can be heard at all. */
  scan(options: ScanOptions, io: PairingIo): Promise<ScannedDevice[]>;
  /** @throws PairingFailed with one sentence a person can act on. */
  pair(options: PairOptions, io: PairingIo): Promise<PairedDevice>;
}

/** A demo lock's stored secrets: its id and address, and the family's own fields (never printed). */
export type DemoLockSecrets = { readonly id: string; readonly address: string } & Readonly<Record<string, unknown>>;

/** One lock of a family in the demo household. */
export interface DemoLockSpec {
  name: string;
  address: string;
  /** Driven over Bluetooth, the demo line's `gateway` (Garden Gate is not: docs/design.md §6). */
  overBluetooth: boolean;
  /** A keypad is paired with it (docs/design.md §4c). */
  keypad: boolean;
  /** Its place in the household's list of locks (docs/design.md §6: Front Door first). */
  order: number;
}

/** Where a demo lock starts: as the store last saw it, so a restarted demo continues. */
export interface DemoLockStart {
  bolt: 'locked' | 'unlocked';
  batteryPercent: number;
  firstSequence: number;
}

export interface FamilyDemo {
  readonly locks: readonly DemoLockSpec[];
  /** Fresh secrets for one of its demo locks (stored with the household, JSON). */
  newSecrets(): Readonly<Record<string, unknown>>;
  /** The lock key the store keeps for the lock (our profile's shared key), or null for a paired family. */
  storedKeyOf(secrets: DemoLockSecrets): string | null;
  /** The simulated lock, paired with the gateway as the secrets say. */
  simulate(options: {
    name: string;
    secrets: DemoLockSecrets;
    start: DemoLockStart;
    clock: Clock;
    /** The zone the demo gives its locks (the host's). */
    timeZone: string;
    /** The gateway's own name in a lock's user list (families with own users). */
    gatewayUser: string;
  }): DemoDevice;
  /** Families with own users: the lock-side user the demo links to its owner ("Olivia's iPhone"). */
  readonly linkedUser?: string;
}

/** One control line's operation on a lock (docs/design.md §4b–§4d, §6), as the demo parsed it. */
export type DemoOperation =
  | { op: 'tap'; ekeyId: string; action: 'lock' | 'unlock' }
  /** A tap by a lock-side user (by name) of a family with own users. */
  | { op: 'tap'; authorization: string; action: 'lock' | 'unlock' }
  | { op: 'manual'; bolt: 'locked' | 'unlocked' }
  | { op: 'battery'; level: number }
  | { op: 'jam' }
  | { op: 'keypad'; code: string; action: 'lock' | 'unlock' }
  | { op: 'keypad_codes' }
  | { op: 'keypad_vendor_code'; code: string }
  | { op: 'lock_clock'; offsetS: number }
  | { op: 'ring' };

/** One keypad code in a `keypad_codes` answer, as the lock holds it (docs/design.md §4c). */
export interface DemoKeypadCode {
  code: string;
  enabled: boolean;
  /** ISO 8601 (with `Z` when the lock holds UTC, without an offset when it holds local time), or null. */
  allowed_from: string | null;
  allowed_until: string | null;
  /** 0–6, Sunday 0; empty for every day. */
  weekdays: number[];
  /** `HH:MM` on the lock's local clock (`until_time` exclusive), or null. */
  from_time: string | null;
  until_time: string | null;
}

/** What a demo lock needs from the demo while it acts. */
export interface DemoOperationContext {
  /** For a lock the gateway never reaches: why it refuses a tap by this eKey now (it gets no allow-list), or null. */
  tapRefusal(ekeyId: string): string | null;
  /** Resolves once the gateway's queued credential writes to the lock are done (a tap after a revocation meets the new list). */
  credentialsSettled(): Promise<void>;
  /** The name of the gateway's own user on the lock (a tap naming it is refused: send a command instead). */
  gatewayUser: string;
}

/**
 * What a demo lock did with an operation: refused (`ok: false` with the reason), or done — with
 * `observe` when the service must have observed what the lock did before the answer goes out.
 */
export type DemoOperationResult =
  | { ok: false; error: string }
  | { ok: true; observe: boolean; result?: 'unlocked' | 'locked' | 'refused'; codes?: DemoKeypadCode[] };

/** The start of a control answer's error when the lock refuses a tap by an eKey that is not on its allow-list. */
export const CREDENTIAL_REFUSED = 'credential_refused';

/** What a jammed lock answers to a move, until it is turned by hand. */
export const JAMMED_ERROR = 'the bolt is jammed; turn it by hand first ("manual")';

/** A demo lock: a simulated device the transport reaches, that also acts on the control lines. */
export interface DemoDevice extends SimulatedDevice {
  /** Resolves once whatever it is doing (a motor move, a ring) has finished. */
  idle(): Promise<void>;
  goOutOfRange(): void;
  comeBackInRange(): void;
  /** Runs one operation; never rejects (a refusal is `ok: false`). */
  operate(operation: DemoOperation, context: DemoOperationContext): Promise<DemoOperationResult>;
}
