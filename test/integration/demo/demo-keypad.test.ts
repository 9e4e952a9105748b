/**
 * The demo's Back Door keypad through the real CLI (docs/design.md §4c): control lines `keypad`,
 * `keypad_codes`, `keypad_vendor_code`, `lock_clock`; a code the service wrote opens the door and
 * is the holder's event; a wrong code is refused and records nothing; revoke takes the code off and
 * the lock refuses it; the vendor's code stays.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { useDemo } from '../../support/demo-process.js';
import { readUntil } from '../../support/polling.js';

interface KeypadCodeLine {
  code: string;
  enabled: boolean;
  allowed_from: string | null;
  allowed_until: string | null;
  weekdays: number[];
  from_time: string | null;
  until_time: string | null;
}

describe('ekey-locks demo: Back Door has a keypad', () => {
  const session = useDemo('ekey-demo-keypad-');
  const { api } = session;
  let backDoor: string;
  let frontDoor: string;
  let alexId: string;

  /** Polls the key until its door code reaches `state` (the lock confirmed), within 10 s. */
  const doorCodeOnceIn = async (keyId: string, state: string): Promise<Record<string, unknown>> => {
    const readDoorCode = async (): Promise<Record<string, unknown> | null> => (await api('GET', `/ekey/${keyId}`)).body.door_code as Record<string, unknown> | null;
    const doorCode = await readUntil(readDoorCode, (code) => code?.state === state, { everyMs: 25 });
    if (doorCode?.state !== state) throw new Error(`door code still ${String(doorCode?.state)}`);
    return doorCode;
  };

  const keypadCodes = async (): Promise<KeypadCodeLine[]> => {
    const answer = await session.demo.control({ op: 'keypad_codes', lock_id: backDoor });
    expect(answer.ok).toBe(true);
    return answer.codes as KeypadCodeLine[];
  };

  /** The lock's event count and its newest event. */
  const events = async (): Promise<{ count: number; newest: Record<string, unknown> | undefined }> => {
    const body = (await api('GET', `/locks/${backDoor}/events?limit=1`)).body;
    return { count: Number(body.count), newest: (body.lock_events as Record<string, unknown>[])[0] };
  };

  beforeAll(() => {
    backDoor = session.lockId('Back Door');
    frontDoor = session.lockId('Front Door');
    alexId = session.demo.demo.users[1]?.id ?? '';
  });

  it('answers keypad_codes with what the lock holds: nothing at first; Front Door has no keypad', async () => {
    expect(await keypadCodes()).toEqual([]);
    expect(await session.demo.control({ op: 'keypad_codes', lock_id: frontDoor })).toMatchObject({ ok: false, error: 'this lock has no keypad' });
    expect(await session.demo.control({ op: 'keypad', lock_id: backDoor, code: 48291, action: 'unlock' })).toMatchObject({ ok: false });
    expect(await session.demo.control({ op: 'lock_clock', lock_id: backDoor, offset_s: 'x' })).toMatchObject({ ok: false });
  });

  it('a key sent with a door code is written onto the lock with its window and opens the door; a wrong code is refused', async () => {
    const alex = session.demo.demo.users[1];
    if (!alex) throw new Error('no Alex');
    const validFrom = new Date(Date.now() - 60_000);
    validFrom.setUTCMilliseconds(0);
    const validTo = new Date(validFrom.getTime() + 5 * 86_400_000);
    const sent = await api('POST', '/ekey', {
      email: alex.email,
      lock_id: backDoor,
      type: 'anytime',
      valid_from: validFrom.toISOString(),
      valid_to: validTo.toISOString(),
      door_code: true,
    });
    expect(sent.status).toBe(201);
    const keyId = String(sent.body.id);
    const doorCode = await doorCodeOnceIn(keyId, 'set');
    const code = String(doorCode.code);
    expect(await keypadCodes()).toEqual([
      { code, enabled: true, allowed_from: validFrom.toISOString(), allowed_until: validTo.toISOString(), weekdays: [], from_time: null, until_time: null },
    ]);

    const before = (await events()).count;
    expect(await session.demo.control({ op: 'keypad', lock_id: backDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'unlocked' });
    const after = await events();
    expect(after.count).toBe(before + 1);
    expect(after.newest).toMatchObject({ type: 'unlock', lock_id: backDoor, performer: { id: alexId }, via: 'keypad' });

    const wrong = code === '999998' ? '999997' : '999998';
    expect(await session.demo.control({ op: 'keypad', lock_id: backDoor, code: wrong, action: 'lock' })).toMatchObject({ ok: true, result: 'refused' });
    expect((await events()).count).toBe(before + 1);

    // The vendor's own code is left alone when the key's code comes off.
    expect(await session.demo.control({ op: 'keypad_vendor_code', lock_id: backDoor, code: '777777' })).toMatchObject({ ok: true });
    expect(await session.demo.control({ op: 'keypad_vendor_code', lock_id: backDoor, code: '120000' })).toMatchObject({ ok: false });
    expect((await api('DELETE', `/ekey/${keyId}`)).status).toBe(200);
    await doorCodeOnceIn(keyId, 'removed');
    expect((await keypadCodes()).map((entry) => entry.code)).toEqual(['777777']);
    expect(await session.demo.control({ op: 'keypad', lock_id: backDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'refused' });
    expect(await session.demo.control({ op: 'keypad', lock_id: backDoor, code: '777777', action: 'lock' })).toMatchObject({ ok: true, result: 'locked' });
    // The vendor's code opens the door, but it is nobody's eKey: no event.
    expect((await events()).count).toBe(before + 1);
  });

  it('lock_clock sets the lock clock off, so the lock judges codes wrong; the service sets it right at its next connect', async () => {
    const blake = session.demo.demo.users[2];
    if (!blake) throw new Error('no Blake');
    const sent = await api('POST', '/ekey', { email: blake.email, lock_id: backDoor, type: 'guest', door_code: true });
    expect(sent.status).toBe(201);
    const code = String((await doorCodeOnceIn(String(sent.body.id), 'set')).code);
    expect(await session.demo.control({ op: 'keypad', lock_id: backDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'unlocked' });
    // Two days slow, the lock reads the guest's day as not begun.
    expect(await session.demo.control({ op: 'lock_clock', lock_id: backDoor, offset_s: -2 * 86_400 })).toEqual(expect.objectContaining({ ok: true }));
    expect(await session.demo.control({ op: 'keypad', lock_id: backDoor, code, action: 'lock' })).toMatchObject({ ok: true, result: 'refused' });
    // Any connect sets the clock: a command's.
    expect((await session.command(backDoor, 'lock')).status).toBe('completed');
    expect(await session.demo.control({ op: 'keypad', lock_id: backDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'unlocked' });
  });
});
