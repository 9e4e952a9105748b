/**
 * The demo's Side Door, a simulated TTLock with a keypad, through the real CLI (docs/design.md
 * §4f, §6): fifth in the household; commands complete with the state the lock drove to
 * (`bolt_state_source: "assumed"`), a turn by hand changes nothing the service shows; the control
 * lines `keypad`, `keypad_codes`, `keypad_vendor_code` and `lock_clock` work on it as on Back Door,
 * with the lock's passcodes shown as it holds them — local wall-clock times, no offset.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { DateTime } from 'luxon';
import { hostTimeZone } from '../../../src/config/time-zone.js';
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

/** The lock's local wall-clock reading of an instant, to the minute it holds (rounded down), without an offset. */
const lockMinute = (instant: Date): string => DateTime.fromMillis(Math.floor(instant.getTime() / 60_000) * 60_000, { zone: hostTimeZone() }).toFormat("yyyy-LL-dd'T'HH:mm:ss");

describe('ekey-locks demo: Side Door is a TTLock with a keypad', () => {
  const session = useDemo('ekey-demo-ttlock-');
  const { api } = session;
  let sideDoor: string;
  let alexId: string;

  const sideDoorEntry = async (): Promise<Record<string, unknown> | undefined> =>
    ((await api('GET', `/users/${session.ownerId}/locks`)).body.locks as Record<string, unknown>[]).find((lock) => lock.id === sideDoor);

  const doorCodeOnceIn = async (keyId: string, state: string): Promise<Record<string, unknown>> => {
    const readDoorCode = async (): Promise<Record<string, unknown> | null> => (await api('GET', `/ekey/${keyId}`)).body.door_code as Record<string, unknown> | null;
    const doorCode = await readUntil(readDoorCode, (code) => code?.state === state, { everyMs: 25 });
    if (doorCode?.state !== state) throw new Error(`door code still ${String(doorCode?.state)}`);
    return doorCode;
  };

  const keypadCodes = async (): Promise<KeypadCodeLine[]> => {
    const answer = await session.demo.control({ op: 'keypad_codes', lock_id: sideDoor });
    expect(answer.ok).toBe(true);
    return answer.codes as KeypadCodeLine[];
  };

  const events = async (): Promise<{ count: number; newest: Record<string, unknown> | undefined }> => {
    const body = (await api('GET', `/locks/${sideDoor}/events?limit=1`)).body;
    return { count: Number(body.count), newest: (body.lock_events as Record<string, unknown>[])[0] };
  };

  beforeAll(() => {
    sideDoor = session.lockId('Side Door');
    alexId = session.demo.demo.users[1]?.id ?? '';
  });

  it('lists Side Door fifth, a TTLock with a gateway connection, online and locked, its bolt state assumed', async () => {
    expect(session.demo.demo.locks.map((lock) => lock.name)).toEqual(['Front Door', 'Garden Gate', 'Back Door', 'Building Door', 'Side Door']);
    expect(session.demo.demo.locks[4]).toMatchObject({ name: 'Side Door', family: 'ttlock', gateway: true, owner_id: session.ownerId });
    const entry = await readUntil(sideDoorEntry, (lock) => lock?.online_status === 'online');
    expect(entry).toMatchObject({ name: 'Side Door', bolt_state: 'locked', online_status: 'online', bolt_state_source: 'assumed', keypad: true, supported_commands: ['lock', 'unlock'] });
    const frontDoor = ((await api('GET', `/users/${session.ownerId}/locks`)).body.locks as Record<string, unknown>[]).find((lock) => lock.name === 'Front Door');
    expect(frontDoor).not.toHaveProperty('bolt_state_source');
  });

  it('unlocks and locks by command; a turn by hand is not seen: the state stays the one the lock drove to', async () => {
    expect((await session.command(sideDoor, 'unlock')).status).toBe('completed');
    expect(await sideDoorEntry()).toMatchObject({ bolt_state: 'unlocked', bolt_state_source: 'assumed' });
    expect(await session.demo.control({ op: 'manual', lock_id: sideDoor, bolt: 'locked' })).toMatchObject({ ok: true });
    expect(await sideDoorEntry()).toMatchObject({ bolt_state: 'unlocked' });
    expect((await session.command(sideDoor, 'lock')).status).toBe('completed');
    expect(await sideDoorEntry()).toMatchObject({ bolt_state: 'locked' });
    expect((await api('POST', `/locks/${sideDoor}/commands`, { type: 'unlatch' })).body).toMatchObject({ code: 'unsupported_command' });
  });

  it('answers a tap with what a TTLock takes instead; battery readings reach the lock list', async () => {
    const ownerKey = String((await sideDoorEntry())?.ekey_id);
    expect(await session.demo.control({ op: 'tap', lock_id: sideDoor, ekey_id: ownerKey, action: 'unlock' })).toMatchObject({ ok: false, error: expect.stringContaining('no phone taps') as unknown });
    expect(await session.demo.control({ op: 'battery', lock_id: sideDoor, level: 0.42 })).toMatchObject({ ok: true });
    expect(await sideDoorEntry()).toMatchObject({ battery_level: 0.42 });
  });

  it('a key sent with a door code is written onto the lock with its window and opens the door as its holder’s; a wrong code is refused', async () => {
    const alex = session.demo.demo.users[1];
    if (!alex) throw new Error('no Alex');
    expect(await keypadCodes()).toEqual([]);
    const validFrom = new Date(Date.now() - 60_000);
    validFrom.setUTCSeconds(0, 0);
    const validTo = new Date(validFrom.getTime() + 5 * 86_400_000);
    const sent = await api('POST', '/ekey', { email: alex.email, lock_id: sideDoor, type: 'anytime', valid_from: validFrom.toISOString(), valid_to: validTo.toISOString(), door_code: true });
    expect(sent.status).toBe(201);
    const keyId = String(sent.body.id);
    const doorCode = await doorCodeOnceIn(keyId, 'set');
    expect(doorCode.enforced_by).toBe('lock');
    const code = String(doorCode.code);
    expect(code).toMatch(/^\d{6}$/);
    expect(await keypadCodes()).toEqual([{ code, enabled: true, allowed_from: lockMinute(validFrom), allowed_until: lockMinute(validTo), weekdays: [], from_time: null, until_time: null }]);

    const before = (await events()).count;
    expect(await session.demo.control({ op: 'keypad', lock_id: sideDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'unlocked' });
    const after = await events();
    expect(after.count).toBe(before + 1);
    expect(after.newest).toMatchObject({ type: 'unlock', lock_id: sideDoor, performer: { id: alexId }, via: 'keypad' });
    expect(await sideDoorEntry()).toMatchObject({ bolt_state: 'unlocked' });

    const wrong = code === '999998' ? '999997' : '999998';
    expect(await session.demo.control({ op: 'keypad', lock_id: sideDoor, code: wrong, action: 'lock' })).toMatchObject({ ok: true, result: 'refused' });
    // A refused entry is an event without performer (owners and admins see it), never with the digits.
    const refused = await events();
    expect(refused.count).toBe(before + 2);
    expect(refused.newest).toMatchObject({ type: 'keypad_refused', lock_id: sideDoor });
    expect(refused.newest?.performer ?? null).toBeNull();
    expect(JSON.stringify(refused.newest)).not.toContain(wrong);

    // The vendor's own code is left alone when the key's code comes off; it opens, and is nobody's eKey.
    expect(await session.demo.control({ op: 'keypad_vendor_code', lock_id: sideDoor, code: '012345' })).toMatchObject({ ok: true });
    expect((await api('DELETE', `/ekey/${keyId}`)).status).toBe(200);
    await doorCodeOnceIn(keyId, 'removed');
    expect((await keypadCodes()).map((entry) => entry.code)).toEqual(['012345']);
    expect(await session.demo.control({ op: 'keypad', lock_id: sideDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'refused' });
    expect(await session.demo.control({ op: 'keypad', lock_id: sideDoor, code: '012345', action: 'lock' })).toMatchObject({ ok: true, result: 'locked' });
    expect((await events()).count).toBe(before + 3);
  });

  it('a scheduled key is enforced by the service: its code is on the lock only inside its window', async () => {
    const blake = session.demo.demo.users[2];
    if (!blake) throw new Error('no Blake');
    // A window that is closed now, whatever the hour: it opened an hour ago for one minute, every day.
    const ago = DateTime.now().setZone(hostTimeZone()).minus({ hours: 1 });
    const sent = await api('POST', '/ekey', {
      email: blake.email,
      lock_id: sideDoor,
      type: 'scheduled',
      schedule_start: `${ago.minute} ${ago.hour} * * * *`,
      schedule_end: `${ago.plus({ minutes: 1 }).minute} ${ago.plus({ minutes: 1 }).hour} * * * *`,
      door_code: true,
    });
    expect(sent.status).toBe(201);
    const doorCode = await doorCodeOnceIn(String(sent.body.id), 'set');
    expect(doorCode.enforced_by).toBe('service');
    expect((await keypadCodes()).map((entry) => entry.code)).not.toContain(String(doorCode.code));
    expect(await session.demo.control({ op: 'keypad', lock_id: sideDoor, code: String(doorCode.code), action: 'unlock' })).toMatchObject({ ok: true, result: 'refused' });
  });

  it('lock_clock sets the lock clock off, so the lock judges codes wrong; the service sets it right at its next connect', async () => {
    const carol = session.demo.demo.users[3];
    if (!carol) throw new Error('no third user');
    const sent = await api('POST', '/ekey', { email: carol.email, lock_id: sideDoor, type: 'guest', door_code: true });
    expect(sent.status).toBe(201);
    const code = String((await doorCodeOnceIn(String(sent.body.id), 'set')).code);
    expect(await session.demo.control({ op: 'keypad', lock_id: sideDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'unlocked' });
    // Two days slow, the lock reads the guest's day as not begun.
    expect(await session.demo.control({ op: 'lock_clock', lock_id: sideDoor, offset_s: -2 * 86_400 })).toMatchObject({ ok: true });
    expect(await session.demo.control({ op: 'keypad', lock_id: sideDoor, code, action: 'lock' })).toMatchObject({ ok: true, result: 'refused' });
    // Any connect sets the clock: a command's.
    expect((await session.command(sideDoor, 'lock')).status).toBe('completed');
    expect(await session.demo.control({ op: 'keypad', lock_id: sideDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'unlocked' });
  });

  it('goes offline and comes back', async () => {
    expect(await session.demo.control({ op: 'offline', lock_id: sideDoor })).toMatchObject({ ok: true });
    expect(await sideDoorEntry()).toMatchObject({ online_status: 'offline' });
    expect((await api('POST', `/locks/${sideDoor}/commands`, { type: 'unlock' })).status).toBe(400);
    expect(await session.demo.control({ op: 'online', lock_id: sideDoor })).toMatchObject({ ok: true });
    expect(await readUntil(sideDoorEntry, (lock) => lock?.online_status === 'online')).toMatchObject({ online_status: 'online' });
  });
});
