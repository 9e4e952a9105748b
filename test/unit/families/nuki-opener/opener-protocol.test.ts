import { describe, expect, it } from '@jest/globals';
import {
  OpenerLockAction,
  OpenerLockState,
  OpenerState,
  decodeDoorbellRecognition,
  encodeDoorbellRecognition,
  openerActionsFor,
  openerStatusOf,
} from '../../../../src/families/nuki-opener/protocol/opener-protocol.js';
import { decodeKeyturnerStates, encodeKeyturnerStates, encodeLockAction, type NukiKeyturnerStates } from '../../../../src/families/nuki/protocol/nuki-messages.js';

function states(overrides: Partial<NukiKeyturnerStates>): NukiKeyturnerStates {
  return {
    nukiState: OpenerState.doorMode,
    lockState: OpenerLockState.locked,
    trigger: 0,
    currentTime: Date.UTC(2026, 0, 2, 3, 4, 5),
    timezoneOffsetMinutes: 60,
    battery: { critical: false, charging: null, percent: null },
    configUpdateCount: 1,
    lockNGoTimer: 0,
    lastLockAction: OpenerLockAction.electricStrikeActuation,
    lastLockActionTrigger: 0,
    lastLockActionCompletionStatus: 0,
    doorSensorState: null,
    nightModeActive: null,
    accessoryBatteryState: null,
    trailing: Buffer.alloc(0),
    ...overrides,
  };
}

describe('Opener protocol tables (vendor constants)', () => {
  it('numbers the lock actions 0x01–0x05 as the vendor does', () => {
    expect(OpenerLockAction).toMatchObject({
      activateRingToOpen: 0x01,
      deactivateRingToOpen: 0x02,
      electricStrikeActuation: 0x03,
      activateContinuousMode: 0x04,
      deactivateContinuousMode: 0x05,
    });
    expect(OpenerState.continuousMode).toBe(0x03);
    expect(OpenerLockState).toMatchObject({ locked: 0x01, ringToOpenActive: 0x03, open: 0x05, opening: 0x07 });
  });

  it('sends the strike as Lock Action 0x03 and lock as RTO off then CM off', () => {
    expect(openerActionsFor('unlock')).toEqual([0x03]);
    expect(openerActionsFor('lock')).toEqual([0x02, 0x05]);
    expect(openerActionsFor('ring_to_open_on')).toEqual([0x01]);
    expect(openerActionsFor('ring_to_open_off')).toEqual([0x02]);
    expect(openerActionsFor('continuous_mode_on')).toEqual([0x04]);
    expect(openerActionsFor('continuous_mode_off')).toEqual([0x05]);
    const payload = encodeLockAction({ action: openerActionsFor('unlock')[0] ?? 0, appId: 0x01020304, flags: 0, nameSuffix: null, nonce: Buffer.alloc(32, 0xab) });
    expect(payload.subarray(0, 6).toString('hex')).toBe('030403020100');
  });

  it('maps states: unlocked while RTO or CM is active or the strike open, else locked', () => {
    expect(openerStatusOf(states({}))).toEqual({ ringToOpen: false, continuousMode: false, strikeOpen: false, bolt: 'locked', batteryCritical: false });
    expect(openerStatusOf(states({ lockState: OpenerLockState.ringToOpenActive }))).toMatchObject({ ringToOpen: true, bolt: 'unlocked' });
    expect(openerStatusOf(states({ nukiState: OpenerState.continuousMode }))).toMatchObject({ continuousMode: true, bolt: 'unlocked' });
    expect(openerStatusOf(states({ lockState: OpenerLockState.open }))).toMatchObject({ strikeOpen: true, bolt: 'unlocked' });
    expect(openerStatusOf(states({ lockState: OpenerLockState.opening }))).toMatchObject({ strikeOpen: true, bolt: 'unlocked' });
    expect(openerStatusOf(states({ lockState: OpenerLockState.uncalibrated })).bolt).toBe('unknown');
  });

  it('reads the battery as the critical flag only (bit 0 of byte 12)', () => {
    const bytes = encodeKeyturnerStates(states({ battery: { critical: true, charging: null, percent: null } }));
    expect(bytes[12]).toBe(0x01);
    expect(openerStatusOf(decodeKeyturnerStates(bytes)).batteryCritical).toBe(true);
    expect(bytes[0]).toBe(0x02);
    expect(bytes[1]).toBe(0x01);
  });

  it('reads a ring (Doorbell Recognition, log type 0x06): mode in bits 0–1 of data byte 0, source in byte 1', () => {
    expect(encodeDoorbellRecognition({ mode: 'ring_to_open', source: 0, trailing: Buffer.alloc(0) }).toString('hex')).toBe('0100');
    expect(decodeDoorbellRecognition(Buffer.from('0000', 'hex'))).toEqual({ mode: 'none', source: 0, trailing: Buffer.alloc(0) });
    expect(decodeDoorbellRecognition(Buffer.from('020001', 'hex'))).toEqual({ mode: 'continuous_mode', source: 0, trailing: Buffer.from([1]) });
    expect(decodeDoorbellRecognition(Buffer.from('fd00', 'hex'))?.mode).toBe('ring_to_open');
    expect(decodeDoorbellRecognition(Buffer.from('03', 'hex'))).toBeNull();
    expect(decodeDoorbellRecognition(Buffer.from('0300', 'hex'))).toBeNull();
  });
});
