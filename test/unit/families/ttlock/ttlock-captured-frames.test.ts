import { describe, expect, it } from '@jest/globals';
import { parseTtlockReply } from '../../../../src/families/ttlock/protocol/ttlock-commands.js';
import { standardMaximCrc, ttlockCrc } from '../../../../src/families/ttlock/protocol/ttlock-crc.js';
import { TTLOCK_FACTORY_KEY } from '../../../../src/families/ttlock/protocol/ttlock-crypto.js';
import { decryptTtlockFrame, encodeTtlockFrame, parseTtlockFrame } from '../../../../src/families/ttlock/protocol/ttlock-frame.js';
import { TtlockFrameReassembler } from '../../../../src/families/ttlock/protocol/ttlock-frame-reassembler.js';
import {
  challengeAnswer,
  decodeAddAdmin,
  decodeAesKey,
  decodeBattery,
  decodeBoltCommand,
  decodeBoltCommandReply,
  decodeChallenge,
  decodeCheckAdmin,
  decodeCheckUserTime,
  encodeAddAdmin,
  encodeBoltCommand,
  encodeCalibrateTime,
  encodeCheckAdmin,
  encodeCheckRandom,
  encodeCheckUserTime,
  SCIENER,
} from '../../../../src/families/ttlock/protocol/ttlock-messages.js';
import { decodePasscodePage } from '../../../../src/families/ttlock/protocol/ttlock-passcodes.js';
import { parseTtlockAdvertisement } from '../../../../src/families/ttlock/protocol/ttlock-advertisement.js';

/**
 * The codec against frames captured from real locks, byte for byte (docs/ttlock.md "Sources and
 * captures"). Each frame is parsed, its CRC checked with the vendor table, its payload decrypted
 * under the published key and compared with the published plaintext, and the plaintext encoded
 * again — IV = key makes AES-CBC deterministic, so our encoder must give back the very bytes the
 * app or the lock sent.
 */

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s/g, ''), 'hex');

/** DEF CON 34, "The Ghost Key" (Yang Liu, Zhenghan Wang), slide 20: the key of the lock of slides 10–21. */
const K1 = hex('82452e7632b45dcdc0d48d242ca5bc7b');
/** The same talk, slide 26: the key the second lock gave at pairing (GET_AES_KEY). */
const K2 = hex('f9cd6721308bda8f17ec4dfdafeec16b');
/** kind3r/ttlock-sdk-js `tools/debug.js` (commit ea94bdd9): the key of the author's test lock. */
const KIND3R_KEY = hex('e817e962c7176c296403f646129f362c');

interface Capture {
  name: string;
  source: string;
  frame: string;
  key: Buffer | null;
  plaintext: string | null;
  header: [number, number, number, number, number];
  command: number;
  crc: number;
}

const CAPTURES: Capture[] = [
  { name: 'app CHECK_ADMIN', source: 'DEF CON 34 slides 11, 20–21', frame: '7f5a050302000f000141aa10199c846fb2c5703f7564e30c4758e0319c0d0a', key: K1, plaintext: '26cdf04a00000002acd30b', header: [5, 3, 2, 0x000f, 0x0001], command: 0x41, crc: 0x9c },
  { name: 'lock reply to CHECK_ADMIN', source: 'DEF CON 34 slides 11, 20–21', frame: '7f5a050302000f000154aa107a04ae0c81643ab77b24f0bcc360f52f5d0d0a', key: K1, plaintext: '41010061631b', header: [5, 3, 2, 0x000f, 0x0001], command: 0x54, crc: 0x5d },
  { name: 'lock reply to INITIALIZATION (paired)', source: 'DEF CON 34 slide 10', frame: '7f5a050302000f000154aa10f765764a1e22c3260de3c4673b532734e50d0a', key: K1, plaintext: '450164', header: [5, 3, 2, 0x000f, 0x0001], command: 0x54, crc: 0xe5 },
  { name: 'app INITIALIZATION (empty)', source: 'DEF CON 34 slides 10, 24', frame: '7f5a0501010001000145aa00e20d0a', key: TTLOCK_FACTORY_KEY, plaintext: '', header: [5, 1, 1, 0x0001, 0x0001], command: 0x45, crc: 0xe2 },
  { name: 'unpaired lock reply to INITIALIZATION (empty)', source: 'DEF CON 34 slide 24', frame: '7f5a050302000f000154aa00840d0a', key: TTLOCK_FACTORY_KEY, plaintext: '', header: [5, 3, 2, 0x000f, 0x0001], command: 0x54, crc: 0x84 },
  { name: 'app GET_AES_KEY under the factory key', source: 'DEF CON 34 slides 24–25', frame: '7f5a0503020001000119aa1026ed1d9258a1e428fcb48bbd1c0e5a46520d0a', key: TTLOCK_FACTORY_KEY, plaintext: '534349454e4552', header: [5, 3, 2, 0x0001, 0x0001], command: 0x19, crc: 0x52 },
  { name: 'lock reply to GET_AES_KEY: the new key', source: 'DEF CON 34 slides 24–26', frame: '7f5a050302000f000119aa20de37d8d433c6a5233f13285445533971fc674a8ed6cba4e9e67eebe5966c89e6660d0a', key: TTLOCK_FACTORY_KEY, plaintext: '1901f9cd6721308bda8f17ec4dfdafeec16b', header: [5, 3, 2, 0x000f, 0x0001], command: 0x19, crc: 0x66 },
  { name: 'app ADD_ADMIN under the new key', source: 'DEF CON 34 slide 43', frame: '7f5a050302000f000156aa10ca0799a4aa74d3dcfd2f5b3fe6888c76d10d0a', key: K2, plaintext: '26d2fc7b0109fe80534349454e4552', header: [5, 3, 2, 0x000f, 0x0001], command: 0x56, crc: 0xd1 },
  { name: 'lock reply to IC_MANAGE (no 0d0a in the published hex)', source: 'kind3r/ttlock-sdk-js tools/debug.js', frame: '7f5a0503020001000154aa1095a3bd4703fde2b76397587b6ee44b7b28', key: KIND3R_KEY, plaintext: '05013f0202', header: [5, 3, 2, 0x0001, 0x0001], command: 0x54, crc: 0x28 },
];

describe('real captured frames, decrypted byte for byte', () => {
  it.each(CAPTURES)('$name ($source)', (capture) => {
    const bytes = hex(capture.frame);
    const frame = parseTtlockFrame(bytes);
    expect([frame.version.protocolType, frame.version.protocolVersion, frame.version.scene, frame.version.group, frame.version.org]).toEqual(capture.header);
    expect(frame.command).toBe(capture.command);
    expect(frame.encryptFlag).toBe(0xaa);
    expect(frame.crc).toBe(capture.crc);
    expect(frame.crcOk).toBe(true);
    if (capture.key === null || capture.plaintext === null) return;
    const plaintext = decryptTtlockFrame(frame, capture.key);
    expect(plaintext.toString('hex')).toBe(capture.plaintext);
    // IV = key: the same plaintext under the same key and header is the very frame that was sent.
    const again = encodeTtlockFrame(frame.version, frame.command, plaintext, capture.key);
    expect(again.toString('hex')).toBe(frame.terminated ? capture.frame : `${capture.frame}0d0a`);
  });

  it('reads the DEF CON admin unlock: CHECK_ADMIN, its challenge, and the answer the UNLOCK carried', () => {
    const checkAdmin = decryptTtlockFrame(parseTtlockFrame(hex(CAPTURES[0]?.frame ?? '')), K1);
    expect(decodeCheckAdmin(checkAdmin)).toEqual({ adminPs: 0x26cdf04a, lockFlagPos: 0, uid: 0x02acd30b });
    expect(encodeCheckAdmin({ adminPs: 0x26cdf04a, lockFlagPos: 0, uid: 0x02acd30b }).equals(checkAdmin)).toBe(true);
    const reply = parseTtlockReply(decryptTtlockFrame(parseTtlockFrame(hex(CAPTURES[1]?.frame ?? '')), K1), 0x41);
    expect(reply).toMatchObject({ command: 0x41, ok: true });
    if (!reply.ok) throw new Error('refused');
    expect(decodeChallenge(reply.data)).toBe(0x0061631b);
    // Slides 36–44 (the second lock): ps 0x10E32AC3 + unlockKey 0x0109FE80 = the sum UNLOCK sent.
    expect(challengeAnswer(0x10e32ac3, 0x0109fe80)).toBe(0x11ed2943);
    const unlock = hex('11ED294369A7E158');
    expect(decodeBoltCommand(unlock)).toEqual({ answer: 0x11ed2943, unixSeconds: 0x69a7e158 });
    expect(encodeBoltCommand({ answer: challengeAnswer(0x10e32ac3, 0x0109fe80), unixSeconds: 0x69a7e158 }).equals(unlock)).toBe(true);
    const unlockReply = parseTtlockReply(hex('47016402ACD30B69A7E1581A03040F2539'), 0x47);
    if (!unlockReply.ok) throw new Error('refused');
    expect(decodeBoltCommandReply(unlockReply.data)).toEqual({
      battery: 100,
      uid: 0x02acd30b,
      uniqueId: 0x69a7e158,
      lockTime: { year: 2026, month: 3, day: 4, hour: 15, minute: 37, second: 57 },
    });
  });

  it('reads the DEF CON pairing: the factory key, "SCIENER", the lock’s new key, ADD_ADMIN under it', () => {
    const getKey = decryptTtlockFrame(parseTtlockFrame(hex(CAPTURES[5]?.frame ?? '')), TTLOCK_FACTORY_KEY);
    expect(getKey.equals(SCIENER)).toBe(true);
    const keyReply = parseTtlockReply(decryptTtlockFrame(parseTtlockFrame(hex(CAPTURES[6]?.frame ?? '')), TTLOCK_FACTORY_KEY), 0x19);
    if (!keyReply.ok) throw new Error('refused');
    expect(decodeAesKey(keyReply.data).equals(K2)).toBe(true);
    const addAdmin = decryptTtlockFrame(parseTtlockFrame(hex(CAPTURES[7]?.frame ?? '')), K2);
    expect(decodeAddAdmin(addAdmin)).toEqual({ adminPs: 0x26d2fc7b, unlockKey: 0x0109fe80 });
    expect(encodeAddAdmin({ adminPs: 0x26d2fc7b, unlockKey: 0x0109fe80 }).equals(addAdmin)).toBe(true);
    const initReply = parseTtlockReply(decryptTtlockFrame(parseTtlockFrame(hex(CAPTURES[2]?.frame ?? '')), K1), 0x45);
    if (!initReply.ok) throw new Error('refused');
    expect(decodeBattery(initReply.data)).toBe(100);
  });

  it('reads the DEF CON user check with decimal dates, and the clock it rewound (slides 45–68)', () => {
    const checkUserTime = hex('1A030410371B0304103700000002D06AEF');
    const fields = decodeCheckUserTime(checkUserTime);
    expect(fields).toEqual({
      start: { year: 2026, month: 3, day: 4, hour: 16, minute: 55, second: 0 },
      end: { year: 2027, month: 3, day: 4, hour: 16, minute: 55, second: 0 },
      lockFlagPos: 0,
      uid: 0x02d06aef,
    });
    expect(encodeCheckUserTime(fields).equals(checkUserTime)).toBe(true);
    // The app's "permanent" window (slide 61): 2000-01-01 00:00 … 2099-12-31 23:59.
    expect(decodeCheckUserTime(hex('0001010000630C1F173B00000002D06AEF')).end).toEqual({ year: 2099, month: 12, day: 31, hour: 23, minute: 59, second: 0 });
    expect(challengeAnswer(0x37a90f3b, 0x0109fe80)).toBe(0x38b30dbb);
    expect(encodeCheckRandom(0x38b30dbb).toString('hex')).toBe('38b30dbb');
    expect(encodeCalibrateTime({ year: 2026, month: 3, day: 5, hour: 13, minute: 55, second: 1 }).toString('hex')).toBe('1a03050d3701');
    expect(encodeCalibrateTime({ year: 2025, month: 1, day: 1, hour: 9, minute: 0, second: 0 }).toString('hex')).toBe('190101090000');
  });
});

describe('real frames that check the CRC and the framing (published without their keys)', () => {
  it.each([
    ['kind3r "Bad CRC quest" (PWD_LIST reply)', '7f5a0503020001000154aa102d2f9276f7eea8794974e465f0e99e18090d0a', 0x09, 0x57],
    ['kind3r "Bad CRC quest" (PWD_LIST reply, one code)', '7f5a0503020001000154aa20df862dda9de19dbdf73afce5eb29d32a24feca385bf44991075a85692353d6acd00d0a', 0xd0, 0x77],
    ['ttlock-rs crc.rs (FUNCTION_LOCK)', '7f5a0503020001000158aa102177b9384b7f7242b59528d26ae752d43a0d0a', 0x3a, 0x62],
  ])('the altered table entry 0x21 → 0x07: %s', (_source, frameHex, vendorCrc, standardCrc) => {
    const bytes = hex(frameHex);
    const body = bytes.subarray(0, bytes.length - 3);
    expect(ttlockCrc(body)).toBe(vendorCrc);
    expect(standardMaximCrc(body)).toBe(standardCrc);
    expect(parseTtlockFrame(bytes).crcOk).toBe(true);
  });

  it.each([
    ['kind3r "Bad CRC quest" (app PWD_LIST, scene 1)', '7f5a0503010001000107aa10ade4c30cccffef87e7a4b85e76213d43fe0d0a'],
    ['kind3r "Bad CRC quest" (app PWD_LIST, scene 1)', '7f5a0503010001000107aa104596cae76d5515c2d19981fb27041ebdd80d0a'],
    ['kind3r "Bad CRC quest" (app PWD_LIST, scene 1)', '7f5a0503010001000107aa10784760ace8d2eabb493dd6d0385bebeb7a0d0a'],
    ['ttlock_flutter issue #33, the official SDK log (group 0x000A, org 0x0022, no 0d0a)', '7f5a050302000a002254aa103aace6f65fe362e378a8011c1330b5b2b0'],
  ])('%s', (_source, frameHex) => {
    expect(parseTtlockFrame(hex(frameHex)).crcOk).toBe(true);
  });

  it('reads the flutter log frame’s group and org', () => {
    expect(parseTtlockFrame(hex('7f5a050302000a002254aa103aace6f65fe362e378a8011c1330b5b2b0')).version).toEqual({ protocolType: 5, protocolVersion: 3, scene: 2, group: 0x000a, org: 0x0022 });
  });

  it('a payload holding 0d0a is one frame (ttlock-ble, an LL609 answering GET_OPERATE_LOG)', () => {
    const wire = hex('7f5a0503020001000154aa20730d0ac33249f9d9c290485f6b8f6b347e75bfa1177f9069aea203aca4956752f70d0a');
    for (const chunkSize of [20, 1, 7, wire.length]) {
      const reassembler = new TtlockFrameReassembler();
      const frames: Buffer[] = [];
      for (let at = 0; at < wire.length; at += chunkSize) frames.push(...reassembler.push(wire.subarray(at, at + chunkSize)));
      expect(frames).toHaveLength(1);
      const frame = parseTtlockFrame(frames[0] ?? Buffer.alloc(0));
      expect(frame.command).toBe(0x54);
      expect(frame.payload).toHaveLength(32);
      expect(frame.payload.subarray(0, 3).toString('hex')).toBe('730d0a');
      expect(frame.crc).toBe(0xf7);
      expect(frame.crcOk).toBe(true);
    }
  });

  it('reads the published plaintext of the PWD_LIST reply: one permanent code "123456" from 2000-01-01 (kind3r "Bad CRC quest")', () => {
    expect(decodePasscodePage(hex('001700b4140106313233343536063132333435360001010000'))).toEqual({
      end: false,
      nextSequence: 0x00b4,
      passcodes: [{ type: 1, code: '123456', start: { year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0 }, end: null }],
    });
    // Its first reply: `0000`, the end of the list.
    expect(decodePasscodePage(hex('0000'))).toEqual({ end: true, nextSequence: 0, passcodes: [] });
  });
});

describe('a real advertisement (ha-ttlock-ble#65, the K5 lock "K5_fe711d")', () => {
  it('reads protocol, scene, params, battery and the MAC from the company id and the bytes after it', () => {
    const advertisement = parseTtlockAdvertisement(new Map([[773, hex('021064b000f4f95365fe711de53838')]]));
    expect(advertisement).toEqual({ protocolType: 5, protocolVersion: 3, scene: 2, params: 0x10, battery: 100, address: '38:38:E5:1D:71:FE' });
  });

  it('ignores manufacturer data that is not a V3 TTLock’s', () => {
    expect(parseTtlockAdvertisement(new Map([[0x004c, hex('0215a92ee200550111e4916c0800200c9a66')]]))).toBeNull();
    expect(parseTtlockAdvertisement(new Map([[773, hex('0210')]]))).toBeNull();
  });
});
