import { boltAfterCommand, type LockCommandType } from '../../domain/lock-command-type.js';
import type { ActivityRecord } from '../../domain/lock-vocabulary.js';
import { CRITICAL_ONLY_BATTERY_LEVEL } from '../nuki/driver/nuki-state-mapping.js';
import type { DeviceInformation } from '../../domain/lock-vocabulary.js';
import type { NukiConfig, NukiLogEntry } from '../nuki/protocol/nuki-messages.js';
import { NukiFamilyUuids } from '../nuki/nuki-api-level.js';
import type { NukiDriverVariant } from '../nuki/nuki-driver-variant.js';
import {
  OPENER_COMMAND_TYPES,
  OpenerLockAction,
  OpenerLockState,
  OpenerLogEntryType,
  OpenerTrigger,
  decodeDoorbellRecognition,
  openerActionsFor,
  openerStatusOf,
  type OpenerCommandType,
} from './protocol/opener-protocol.js';

/** Battery level of an Opener that is not critical: it reports no percentage, so HomeKit shows it full. */
export const OPENER_BATTERY_OK_LEVEL = 1;

/** The Opener's keyturner service as the driver uses it. */
const OPENER_KEYTURNER_PROFILE = {
  characteristics: [{ name: 'usdio', service: NukiFamilyUuids.openerKeyturnerService, uuid: NukiFamilyUuids.openerKeyturnerUsdio, required: true, subscribe: true }],
};

function isOpenerCommand(command: LockCommandType): command is OpenerCommandType {
  return (OPENER_COMMAND_TYPES as readonly string[]).includes(command);
}

/**
 * The Nuki Opener (docs/design.md §4d): `unlock` actuates the electric strike and completes when
 * the Opener reports it done; `lock` turns Ring to Open and Continuous Mode off; the mode
 * commands switch their mode. Bolt: `unlocked` while a mode is active or the strike is open.
 * Its log gives rings (Doorbell Recognition) and the actions of other authorizations; openings
 * the Opener made on a ring (trigger automatic) are part of that ring's event, not events of
 * their own.
 */
export function openerVariant(): NukiDriverVariant {
  return {
    family: 'nuki-opener',
    profile: OPENER_KEYTURNER_PROFILE,
    beaconService: NukiFamilyUuids.openerKeyturnerService,
    apiLevel: '2.2',
    actionsFor: (command) => (isOpenerCommand(command) ? openerActionsFor(command) : null),
    statesReport: (states) => {
      const status = openerStatusOf(states);
      return {
        bolt: status.bolt,
        source: states.trigger === OpenerTrigger.manual || states.trigger === OpenerTrigger.button ? 'manual' : states.trigger === OpenerTrigger.automatic ? 'auto' : null,
        battery: status.batteryCritical ? CRITICAL_ONLY_BATTERY_LEVEL : OPENER_BATTERY_OK_LEVEL,
        door: null,
        modes: { ringToOpen: status.ringToOpen, continuousMode: status.continuousMode },
      };
    },
    blocked: () => false,
    moving: (states) => states.lockState === OpenerLockState.opening,
    reached: (command, states) => {
      const status = openerStatusOf(states);
      switch (command) {
        case 'unlock':
          // The strike has run (COMPLETE); the Opener is back in its mode.
          return { done: !status.strikeOpen || states.lockState === OpenerLockState.open, bolt: status.bolt === 'unknown' ? 'locked' : status.bolt };
        case 'lock':
          return { done: !status.ringToOpen && !status.continuousMode, bolt: 'locked' };
        case 'ring_to_open_on':
          return { done: status.ringToOpen, bolt: 'unlocked' };
        case 'continuous_mode_on':
          return { done: status.continuousMode, bolt: 'unlocked' };
        case 'ring_to_open_off':
          return { done: !status.ringToOpen, bolt: status.continuousMode ? 'unlocked' : 'locked' };
        case 'continuous_mode_off':
          return { done: !status.continuousMode, bolt: status.ringToOpen ? 'unlocked' : 'locked' };
        default:
          return { done: false, bolt: boltAfterCommand(command) };
      }
    },
    activityOf: openerActivityOf,
    deviceInformation: (config: NukiConfig): DeviceInformation => ({
      manufacturer: 'Nuki Home Solutions',
      model: `Nuki Opener (hardware ${config.hardwareRevision.join('.')})`,
      serial: config.nukiId.toString(16).toUpperCase().padStart(8, '0'),
      firmware: config.firmwareVersion.join('.'),
    }),
  };
}

/**
 * An Opener log entry as activity: a ring (Doorbell Recognition) with `opened` when its mode
 * opened the door; a strike or mode switch by another authorization a tap naming it (its
 * direction: strike and mode on `unlock`, mode off `lock`); our own actions `remote`; the
 * Opener's own openings on a ring `auto` (no event: the ring carries it).
 */
export function openerActivityOf(entry: NukiLogEntry, ourAuthorizationId: number, now: number): ActivityRecord | null {
  const timestamp = entry.timestamp ?? now;
  const detail = entry.detail;
  if (detail.kind === 'other' && detail.type === OpenerLogEntryType.doorbellRecognition) {
    const ring = decodeDoorbellRecognition(detail.data);
    if (ring === null) return null;
    const opened = ring.mode !== 'none';
    return { sequence: entry.index, action: opened ? 'unlock' : 'lock', source: 'auto', credential: null, timestamp, ring: { opened } };
  }
  if (detail.kind !== 'lock_action' || detail.completionStatus !== 0) return null;
  const action = directionOfOpenerAction(detail.action);
  if (action === null) return null;
  const base = { sequence: entry.index, action, credential: null, timestamp };
  if (detail.trigger === OpenerTrigger.system) {
    if (entry.authorizationId === ourAuthorizationId) return { ...base, source: 'remote' };
    return { ...base, source: 'tap', actor: entry.name };
  }
  return { ...base, source: detail.trigger === OpenerTrigger.automatic ? 'auto' : 'manual' };
}

function directionOfOpenerAction(action: number): 'lock' | 'unlock' | null {
  switch (action) {
    case OpenerLockAction.electricStrikeActuation:
    case OpenerLockAction.activateRingToOpen:
    case OpenerLockAction.activateContinuousMode:
      return 'unlock';
    case OpenerLockAction.deactivateRingToOpen:
    case OpenerLockAction.deactivateContinuousMode:
      return 'lock';
    default:
      return null;
  }
}
