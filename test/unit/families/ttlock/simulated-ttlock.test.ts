import { afterEach, describe, expect, it } from '@jest/globals';
import { parseTtlockReply } from '../../../../src/families/ttlock/protocol/ttlock-commands.js';
import { TTLOCK_FACTORY_KEY } from '../../../../src/families/ttlock/protocol/ttlock-crypto.js';
import { decryptTtlockFrame, encodeTtlockFrame, parseTtlockFrame, type TtlockLockVersion } from '../../../../src/families/ttlock/protocol/ttlock-frame.js';
import { TtlockFrameReassembler } from '../../../../src/families/ttlock/protocol/ttlock-frame-reassembler.js';
import { challengeAnswer, decodeChallenge, encodeBoltCommand } from '../../../../src/families/ttlock/protocol/ttlock-messages.js';
import { TTLOCK_NOTIFY, TTLOCK_WRITE } from '../../../../src/families/ttlock/driver/ttlock-gatt-profile.js';
import { SimulatedTtlock } from '../../../../src/families/ttlock/simulator/simulated-ttlock.js';
import type { SimulatedLockLink } from '../../../../src/gateway/transports/simulator/simulated-device.js';
import { ManualClock } from '../../../support/manual-clock.js';
import { until } from '../../../support/polling.js';

/**
 * The simulated TTLock against the app's side of the DEF CON 34 capture: the captured frames, as
 * the app sent them, written to it in 20-byte chunks — so the simulation answers what a real lock
 * was seen to answer, and takes what a real lock was seen to take (docs/ttlock.md "The captures").
 */

const hex = (text: string): Buffer => Buffer.from(text, 'hex');
/** The key the second lock of the capture gave at pairing (slide 26). */
const K2 = hex('f9cd6721308bda8f17ec4dfdafeec16b');
/** The header that lock answered with (slides 24–26). */
const DEF_CON_LOCK: TtlockLockVersion = { protocolType: 5, protocolVersion: 3, scene: 2, group: 0x000f, org: 0x0001 };

/** A central's raw view of one link: frames out in 20-byte writes, notifications reassembled. */
class RawCentral {
  private readonly reassembler = new TtlockFrameReassembler();
  readonly frames: Buffer[] = [];

  constructor(readonly link: SimulatedLockLink) {
    link.onNotification((characteristic, value) => {
      if (characteristic === TTLOCK_NOTIFY) this.frames.push(...this.reassembler.push(value));
    });
  }

  async exchange(frame: Buffer): Promise<Buffer> {
    const before = this.frames.length;
    for (let at = 0; at < frame.length; at += 20) this.link.write(TTLOCK_WRITE, frame.subarray(at, at + 20));
    await until(() => this.frames.length > before, 'the lock’s answer', 2_000);
    return this.frames[before] ?? Buffer.alloc(0);
  }
}

const locks: SimulatedTtlock[] = [];
afterEach(() => {
  for (const lock of locks.splice(0)) lock.goOutOfRange();
});

function newLock(options: Partial<ConstructorParameters<typeof SimulatedTtlock>[0]> = {}): SimulatedTtlock {
  const lock = new SimulatedTtlock({ address: 'C0:FF:EE:7E:00:01', name: 'TTLock', clock: new ManualClock(Date.parse('2026-03-04T07:38:00Z')), timeZone: 'Asia/Shanghai', version: DEF_CON_LOCK, ...options });
  locks.push(lock);
  return lock;
}

describe('the simulated TTLock, fed the app’s captured frames', () => {
  it('pairs as the DEF CON lock did: INITIALIZATION, GET_AES_KEY under the factory key, then the captured ADD_ADMIN under the new key', async () => {
    const lock = newLock({ newKey: () => Buffer.from(K2) });
    lock.touchKeypad();
    const app = new RawCentral(lock.openLink());
    // Slide 24: the app's INITIALIZATION, and the unpaired lock's empty answer — byte for byte the captured reply.
    expect((await app.exchange(hex('7f5a0501010001000145aa00e20d0a'))).toString('hex')).toBe('7f5a050302000f000154aa00840d0a');
    // Slides 24–26: GET_AES_KEY "SCIENER" under the factory key; the reply carries command 0x19 and the new key.
    const keyReply = parseTtlockFrame(await app.exchange(hex('7f5a0503020001000119aa1026ed1d9258a1e428fcb48bbd1c0e5a46520d0a')));
    expect(keyReply.command).toBe(0x19);
    expect(decryptTtlockFrame(keyReply, TTLOCK_FACTORY_KEY).toString('hex')).toBe('1901f9cd6721308bda8f17ec4dfdafeec16b');
    // The captured reply's very bytes: the same key and header give the same frame.
    expect(encodeTtlockFrame(keyReply.version, 0x19, decryptTtlockFrame(keyReply, TTLOCK_FACTORY_KEY), TTLOCK_FACTORY_KEY).toString('hex')).toBe('7f5a050302000f000119aa20de37d8d433c6a5233f13285445533971fc674a8ed6cba4e9e67eebe5966c89e6660d0a');
    // Slide 43: the captured ADD_ADMIN, under the new key.
    const added = parseTtlockReply(decryptTtlockFrame(parseTtlockFrame(await app.exchange(hex('7f5a050302000f000156aa10ca0799a4aa74d3dcfd2f5b3fe6888c76d10d0a'))), K2), 0x56);
    expect(added).toEqual({ command: 0x56, ok: true, data: Buffer.from('SCIENER') });
    expect(lock.adminSecrets).toEqual({ aesKey: K2, adminPs: 0x26d2fc7b, unlockKey: 0x0109fe80 });
  });

  it('unlocks for the admin of slides 36–44: CHECK_ADMIN with its plaintext, then UNLOCK with ps + unlockKey', async () => {
    const lock = newLock({ paired: { aesKey: Buffer.from(K2), adminPs: 0x26d2fc7b, unlockKey: 0x0109fe80 } });
    const app = new RawCentral(lock.openLink());
    const send = async (command: number, plaintext: Buffer): Promise<Buffer> => {
      const frame = parseTtlockFrame(await app.exchange(encodeTtlockFrame(DEF_CON_LOCK, command, plaintext, K2)));
      expect(frame.version).toEqual(DEF_CON_LOCK);
      expect(frame.command).toBe(0x54);
      return decryptTtlockFrame(frame, K2);
    };
    expect((await send(0x45, Buffer.alloc(0))).toString('hex')).toBe('450164');
    const checked = parseTtlockReply(await send(0x41, hex('26D2FC7B00000002ACD30B')), 0x41);
    if (!checked.ok) throw new Error('refused');
    const ps = decodeChallenge(checked.data);
    const unlocked = await send(0x47, encodeBoltCommand({ answer: challengeAnswer(ps, 0x0109fe80), unixSeconds: 0x69a7e158 }));
    // 47 01 | battery | uid | the app's timestamp echoed | the lock's clock (Shanghai, UTC+8: 15:38:00).
    expect(unlocked.toString('hex')).toBe('47016402acd30b69a7e1581a03040f2600');
    expect(lock.bolt).toBe('unlocked');
    // A replayed answer is refused: the challenge is spent.
    expect((await send(0x47, encodeBoltCommand({ answer: challengeAnswer(ps, 0x0109fe80), unixSeconds: 0x69a7e158 }))).toString('hex')).toBe('470002');
  });

  it('answers nothing it should not: a wrong admin password, a frame under the factory key once paired', async () => {
    const lock = newLock({ paired: { aesKey: Buffer.from(K2), adminPs: 0x26d2fc7b, unlockKey: 0x0109fe80 } });
    const app = new RawCentral(lock.openLink());
    const refused = decryptTtlockFrame(parseTtlockFrame(await app.exchange(encodeTtlockFrame(DEF_CON_LOCK, 0x41, hex('0000000100000002ACD30B'), K2))), K2);
    expect(refused.toString('hex')).toBe('410003');
    const factory = decryptTtlockFrame(parseTtlockFrame(await app.exchange(hex('7f5a0503020001000119aa1026ed1d9258a1e428fcb48bbd1c0e5a46520d0a'))), TTLOCK_FACTORY_KEY);
    expect(factory.toString('hex')).toBe('190007');
  });

  it('drops a link that stays silent for its idle period (about 5 s on a real lock)', async () => {
    const lock = newLock({ idleDropMs: 100, paired: { aesKey: Buffer.from(K2), adminPs: 1, unlockKey: 2 } });
    const link = lock.openLink();
    let lost = false;
    link.onLost(() => {
      lost = true;
    });
    await until(() => lost, 'the idle drop');
    expect(link.open).toBe(false);
  });
});
