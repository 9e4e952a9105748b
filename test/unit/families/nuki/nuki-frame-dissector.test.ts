import { describe, expect, it } from '@jest/globals';
import { NukiFrameError } from '../../../../src/families/nuki/protocol/nuki-frame.js';
import { buildNukiFrame, dissectNukiFrame, parseNukiHex } from '../../../../src/families/nuki/protocol/nuki-frame-dissector.js';

const SHARED_KEY = Buffer.from('217fcb0f18caf284e9bdea0b94b83b8d10867ed706bfdedbd2381f4cb3b8f730', 'hex');
const READ_STATE_REQUEST = Buffer.from('37917f1af31ec5940705f34d1e5550607d5b2f9fe7d496b6020000001a00670d124926004366532e8d927a33fe84e782a9594d39157d065e', 'hex');

function reasonOf(run: () => unknown): string {
  try {
    run();
    return 'no error';
  } catch (error) {
    return error instanceof NukiFrameError ? error.reason : 'other error';
  }
}

describe('dissectNukiFrame', () => {
  it('describes an unencrypted frame with the keys in the documented order', () => {
    const dissection = dissectNukiFrame(Buffer.from('0100030027a7', 'hex'));
    expect(JSON.stringify(dissection)).toBe('{"encrypted":false,"command":1,"command_name":"Request Data","payload":"0300","crc_ok":true}');
  });

  it('describes an encrypted frame of §9 with its shared key', () => {
    expect(JSON.stringify(dissectNukiFrame(READ_STATE_REQUEST, SHARED_KEY))).toBe(
      '{"encrypted":true,"nonce":"37917f1af31ec5940705f34d1e5550607d5b2f9fe7d496b6","auth_id":2,"command":1,"command_name":"Request Data","payload":"0c00","crc_ok":true}',
    );
  });

  it('refuses a bad CRC, a short frame, a bad MAC', () => {
    expect(reasonOf(() => dissectNukiFrame(Buffer.from('0100030027a8', 'hex')))).toBe('bad_crc');
    expect(reasonOf(() => dissectNukiFrame(Buffer.from('0100', 'hex')))).toBe('too_short');
    expect(reasonOf(() => dissectNukiFrame(READ_STATE_REQUEST, Buffer.alloc(32)))).toBe('bad_mac');
  });

  it('round-trips with buildNukiFrame, plain and encrypted', () => {
    const plain = buildNukiFrame({ command: 0x0d, payload: Buffer.from('01', 'hex') });
    expect(dissectNukiFrame(plain)).toMatchObject({ command: 13, command_name: 'Lock Action', payload: '01' });
    const encrypted = buildNukiFrame({ command: 0x0c, payload: Buffer.alloc(0), encryption: { sharedKey: SHARED_KEY, authorizationId: 2, nonce: Buffer.alloc(24, 1) } });
    expect(dissectNukiFrame(encrypted, SHARED_KEY)).toMatchObject({ encrypted: true, auth_id: 2, command: 12, command_name: 'Keyturner States', payload: '' });
  });
});

describe('parseNukiHex', () => {
  it('accepts either case and refuses odd lengths and non-hex', () => {
    expect(parseNukiHex('0A0b')).toEqual(Buffer.from([0x0a, 0x0b]));
    expect(reasonOf(() => parseNukiHex('abc'))).toBe('bad_hex');
    expect(reasonOf(() => parseNukiHex('zz'))).toBe('bad_hex');
    expect(reasonOf(() => parseNukiHex('0x01'))).toBe('bad_hex');
  });
});
