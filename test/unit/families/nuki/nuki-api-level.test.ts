import { describe, expect, it } from '@jest/globals';
import {
  NUKI_MODELS,
  NukiFamilyUuids,
  decodeSecurityPin,
  encodeSecurityPin,
  pairingTargetOf,
  pairingTargetOfModel,
} from '../../../../src/families/nuki/nuki-api-level.js';
import {
  decodeApi23AuthorizationData,
  decodeApi23AuthorizationId,
  encodeApi23AuthorizationData,
  encodeApi23AuthorizationId,
} from '../../../../src/families/nuki/protocol/nuki-api23-messages.js';

describe('Nuki API levels and models (vendor constants)', () => {
  it('names the services of the vendor constants exactly', () => {
    expect(NukiFamilyUuids.lockPairingService).toBe('a92ee100-5501-11e4-916c-0800200c9a66');
    expect(NukiFamilyUuids.lockPairingServiceApi23).toBe('a92ee300-5501-11e4-916c-0800200c9a66');
    expect(NukiFamilyUuids.lockPairingGdioApi23).toBe('a92ee301-5501-11e4-916c-0800200c9a66');
    expect(NukiFamilyUuids.lockKeyturnerUsdio).toBe('a92ee202-5501-11e4-916c-0800200c9a66');
    expect(NukiFamilyUuids.openerPairingService).toBe('a92ae100-5501-11e4-916c-0800200c9a66');
    expect(NukiFamilyUuids.openerPairingGdio).toBe('a92ae101-5501-11e4-916c-0800200c9a66');
    expect(NukiFamilyUuids.openerKeyturnerService).toBe('a92ae200-5501-11e4-916c-0800200c9a66');
    expect(NukiFamilyUuids.openerKeyturnerUsdio).toBe('a92ae202-5501-11e4-916c-0800200c9a66');
  });

  it('detects the API level and kind from the pairing service offered', () => {
    expect(pairingTargetOf(['A92EE300-5501-11E4-916C-0800200C9A66'])).toMatchObject({ kind: 'smart_lock', apiLevel: '2.3', pairingGdio: NukiFamilyUuids.lockPairingGdioApi23 });
    expect(pairingTargetOf([NukiFamilyUuids.lockPairingService])).toMatchObject({ kind: 'smart_lock', apiLevel: '2.2' });
    expect(pairingTargetOf([NukiFamilyUuids.openerPairingService])).toMatchObject({ kind: 'opener', apiLevel: '2.2' });
    expect(pairingTargetOf(['0000180f-0000-1000-8000-00805f9b34fb'])).toBeNull();
  });

  it('puts the Ultra, Go and Pro 5th generation on API 2.3 and the older locks on 2.2', () => {
    for (const model of ['smart_lock_ultra', 'smart_lock_go', 'smart_lock_pro_5'] as const) {
      expect(NUKI_MODELS[model].apiLevel).toBe('2.3');
      expect(pairingTargetOfModel(model).pairingService).toBe(NukiFamilyUuids.lockPairingServiceApi23);
    }
    for (const model of ['smart_lock_1', 'smart_lock_2', 'smart_lock_3', 'smart_lock_4'] as const) {
      expect(pairingTargetOfModel(model).pairingService).toBe(NukiFamilyUuids.lockPairingService);
    }
    expect(pairingTargetOfModel('opener').kind).toBe('opener');
  });

  it('writes the security PIN as u16 LE up to API 2.2 and as u32 LE (six digits) from 2.3', () => {
    expect(encodeSecurityPin(1234, '2.2').toString('hex')).toBe('d204');
    expect(encodeSecurityPin(123456, '2.3').toString('hex')).toBe('40e20100');
    expect(encodeSecurityPin(999999, '2.3').toString('hex')).toBe('3f420f00');
    expect(decodeSecurityPin(Buffer.from('40e20100', 'hex'), '2.3')).toBe(123456);
    expect(() => encodeSecurityPin(123456, '2.2')).toThrow(RangeError);
    expect(() => encodeSecurityPin(1_000_000, '2.3')).toThrow(RangeError);
    expect(() => decodeSecurityPin(Buffer.from('d204', 'hex'), '2.3')).toThrow(RangeError);
  });
});

describe('API 2.3 pairing payloads', () => {
  it('lays out Authorization Data as app id u32 | name[32] | PIN u32, 40 bytes', () => {
    const payload = encodeApi23AuthorizationData({ appId: 0x12345678, name: 'ekey', securityPin: 123456 });
    expect(payload.length).toBe(40);
    expect(payload.subarray(0, 4).toString('hex')).toBe('78563412');
    expect(payload.subarray(4, 8).toString('utf8')).toBe('ekey');
    expect(payload.subarray(8, 36).every((byte) => byte === 0)).toBe(true);
    expect(payload.subarray(36).toString('hex')).toBe('40e20100');
    expect(decodeApi23AuthorizationData(payload)).toEqual({ appId: 0x12345678, name: 'ekey', securityPin: 123456 });
  });

  it('cuts a long name at a character boundary and refuses a payload of another length', () => {
    const payload = encodeApi23AuthorizationData({ appId: 1, name: 'é'.repeat(20), securityPin: 1 });
    expect(decodeApi23AuthorizationData(payload).name).toBe('é'.repeat(16));
    expect(() => decodeApi23AuthorizationData(Buffer.alloc(39))).toThrow(/40 expected/);
  });

  it('reads Authorization-ID as authorization id u32 | lock UUID[16], keeping later bytes', () => {
    const uuid = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const payload = encodeApi23AuthorizationId({ authorizationId: 7, lockUuid: uuid, trailing: Buffer.from([0xaa]) });
    expect(payload.toString('hex')).toBe(`07000000${uuid.toString('hex')}aa`);
    expect(decodeApi23AuthorizationId(payload)).toEqual({ authorizationId: 7, lockUuid: uuid, trailing: Buffer.from([0xaa]) });
    expect(() => decodeApi23AuthorizationId(Buffer.alloc(19))).toThrow(/at least 20/);
  });
});
