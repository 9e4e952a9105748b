import type { LockCommandType } from '../../domain/lock-command-type.js';
import { NUKI_KEYTURNER_PROFILE } from './driver/nuki-gatt-profile.js';
import {
  activityOfNukiLogEntry,
  batteryLevelOfNuki,
  boltOfNukiLockState,
  deviceInformationOfNukiConfig,
  doorOfNukiSensorState,
  reachedTarget,
  sourceOfNukiTrigger,
} from './driver/nuki-state-mapping.js';
import { NukiCompletionStatus, NukiLockAction, NukiLockState } from './protocol/nuki-commands.js';
import { NukiUuids } from './protocol/nuki-uuids.js';
import type { NukiApiLevel } from './nuki-api-level.js';
import type { NukiDriverVariant } from './nuki-driver-variant.js';

/**
 * The Nuki Smart Lock (1.0–4.0 on API 2.1/2.2; Ultra, Go, Pro 5th generation on API 2.3): lock,
 * unlock and unlatch (docs/design.md §4b, §4d).
 */
export function smartLockVariant(apiLevel: NukiApiLevel = '2.2'): NukiDriverVariant {
  return {
    family: 'nuki',
    profile: NUKI_KEYTURNER_PROFILE,
    beaconService: NukiUuids.keyturnerService,
    apiLevel,
    actionsFor: (command: LockCommandType) => {
      switch (command) {
        case 'lock':
          return [NukiLockAction.lock];
        case 'unlock':
          return [NukiLockAction.unlock];
        case 'unlatch':
          return [NukiLockAction.unlatch];
        default:
          return null;
      }
    },
    statesReport: (states) => ({
      bolt: boltOfNukiLockState(states.lockState),
      source: sourceOfNukiTrigger(states.trigger),
      battery: batteryLevelOfNuki(states.battery),
      door: doorOfNukiSensorState(states.doorSensorState),
      modes: null,
    }),
    blocked: (states) => states.lockState === NukiLockState.motorBlocked || states.lastLockActionCompletionStatus === NukiCompletionStatus.motorBlocked,
    moving: (states) => boltOfNukiLockState(states.lockState) === 'moving',
    reached: (command, states) => {
      const direction = command === 'lock' ? 'lock' : 'unlock';
      return { done: reachedTarget(states.lockState, direction), bolt: direction === 'lock' ? 'locked' : 'unlocked' };
    },
    activityOf: activityOfNukiLogEntry,
    deviceInformation: deviceInformationOfNukiConfig,
  };
}
