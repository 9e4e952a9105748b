import type { ActivityRecord, ActivitySource, Bolt, DeviceInformation, DoorState, OpenerModes } from '../domain/lock-vocabulary.js';

/** The bolt settled in a new position. */
export interface BoltChangedEvent {
  lockId: string;
  bolt: Bolt;
  /** What moved it, as the lock reported; null when unknown (e.g. first read after boot). */
  source: ActivitySource | null;
}

/** The battery level changed (or was read for the first time). */
export interface BatteryChangedEvent {
  lockId: string;
  /** 0..1 */
  level: number;
}

/** The lock became reachable or unreachable (docs/design.md §3 "online"). */
export interface ConnectivityChangedEvent {
  lockId: string;
  online: boolean;
}

/** One activity record from the lock, live or read back after a reconnect. */
export interface ActivityEvent {
  lockId: string;
  record: ActivityRecord;
  /** True when it came from a read-since backlog (it happened while the gateway was away). */
  backlog: boolean;
}

/** The door sensor changed (locks with one). */
export interface DoorChangedEvent {
  lockId: string;
  door: DoorState;
}

/** A Nuki Opener's modes changed (docs/design.md §4d). */
export interface ModesChangedEvent {
  lockId: string;
  modes: OpenerModes;
}

/** The motor started or stopped moving. */
export interface MovingChangedEvent {
  lockId: string;
  moving: boolean;
}

/** Device Information was read for the first time. */
export interface DeviceInformationEvent {
  lockId: string;
  deviceInformation: DeviceInformation;
}

/** A connect finished reading the lock (state, log): work that waits for the lock can run now. */
export interface SynchronisedEvent {
  lockId: string;
}

/** An advertisement from the lock was heard (on-demand locks): it is near, work that waits for it may try. */
export interface AdvertisedEvent {
  lockId: string;
}

/** Event map of {@link LockGateway} (for Node's typed EventEmitter). */
export interface LockGatewayEvents {
  bolt: [BoltChangedEvent];
  battery: [BatteryChangedEvent];
  connectivity: [ConnectivityChangedEvent];
  activity: [ActivityEvent];
  door: [DoorChangedEvent];
  modes: [ModesChangedEvent];
  moving: [MovingChangedEvent];
  device_information: [DeviceInformationEvent];
  synchronised: [SynchronisedEvent];
  advertised: [AdvertisedEvent];
}
