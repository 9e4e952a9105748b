import type { LockCommandType } from '../../domain/lock-command-type.js';
import type { ActivityRecord } from '../../domain/lock-vocabulary.js';
import type { ReportedBolt } from '../../gateway/lock-driver.js';
import type { GattProfile } from '../../gateway/gatt-transport.js';
import type { ActivitySource, DeviceInformation } from '../../domain/lock-vocabulary.js';
import type { DoorState, OpenerModes } from '../../domain/lock-vocabulary.js';
import type { NukiConfig, NukiKeyturnerStates, NukiLogEntry } from './protocol/nuki-messages.js';
import type { NukiApiLevel } from './nuki-api-level.js';

/** What a device's Keyturner States say, in the gateway's words. */
export interface NukiStatesReport {
  bolt: ReportedBolt;
  /** What moved it, when the states name it (null: unknown or a Bluetooth command). */
  source: ActivitySource | null;
  /** Battery on a 0..1 scale; null when the device does not say. */
  battery: number | null;
  door: DoorState | null;
  /** The Opener's modes (null for a Smart Lock). */
  modes: OpenerModes | null;
}

/**
 * What differs between the devices of the Nuki protocol family (docs/design.md §4b, §4d) that the
 * shared keyturner driver (frames, challenges, log read-back, news from the beacon) needs to know:
 * the Smart Lock (any API level) and the Opener.
 */
export interface NukiDriverVariant {
  /** The configured family: `nuki` or `nuki-opener`. */
  readonly family: string;
  /** The keyturner service with its User-Specific Data I/O named `usdio`. */
  readonly profile: GattProfile;
  /** The UUID its iBeacon carries once paired. */
  readonly beaconService: string;
  /** Where the security PIN is a u16 (API 2.1/2.2) or a u32 (API 2.3). */
  readonly apiLevel: NukiApiLevel;
  /** The Lock Actions a command sends, in order; null when the device has no such command. */
  actionsFor(command: LockCommandType): readonly number[] | null;
  /** The meaning of a Keyturner States message. */
  statesReport(states: NukiKeyturnerStates): NukiStatesReport;
  /** A motor that blocked (Smart Lock only): the command failed jammed. */
  blocked(states: NukiKeyturnerStates): boolean;
  /** True while the device is still moving (the states after COMPLETE are asked for again). */
  moving(states: NukiKeyturnerStates): boolean;
  /** Whether the final states after the command's last COMPLETE show it done, and the bolt reported. */
  reached(command: LockCommandType, states: NukiKeyturnerStates): { done: boolean; bolt: 'locked' | 'unlocked' };
  /** One log entry as activity (a bolt move or a ring), or null. */
  activityOf(entry: NukiLogEntry, ourAuthorizationId: number, now: number): ActivityRecord | null;
  /** Device Information from Config. */
  deviceInformation(config: NukiConfig): DeviceInformation;
}
