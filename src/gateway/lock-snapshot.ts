import type { ActivitySource, Bolt, DeviceInformation, DoorState, OpenerModes } from '../domain/lock-vocabulary.js';

/** Everything the gateway knows about one lock, answered from memory (never waits on Bluetooth). */
export interface LockSnapshot {
  /** Lock family (`ekey`, `nuki`). */
  family: string;
  /** Last settled bolt position; a move in progress keeps the previous value (see `moving`). */
  bolt: Bolt;
  /** True while the lock reports its motor moving. */
  moving: boolean;
  /** Connected now, or heard from within `offlineAfterS` (docs/design.md §3 "online"). */
  online: boolean;
  /** A GATT connection is up and synchronised right now. */
  connected: boolean;
  /** Battery level on the service's 0..1 scale, null until first read. */
  batteryLevel: number | null;
  /** Door sensor, null when the lock has none (or has not said yet). */
  door: DoorState | null;
  /** A Nuki Opener's Ring to Open and Continuous Mode (docs/design.md §4d); null for other locks or until read. */
  modes: OpenerModes | null;
  /** Last time the gateway heard from the lock (ms since epoch, from the injected Clock). */
  lastSeenAt: number | null;
  /** Source of the most recent activity record or bolt change, null when unknown. */
  lastActivitySource: ActivitySource | null;
  /** Manufacturer, model, serial and firmware revision, null until first read. */
  deviceInformation: DeviceInformation | null;
  /** Highest activity sequence delivered to listeners. */
  lastSequence: number;
  /** Why the lock cannot be driven at all (e.g. a Nuki lock never paired), else null. */
  unusableReason: string | null;
}
