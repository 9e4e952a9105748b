/**
 * Issue #32, finding 6 (docs/design.md §4c, docs/door-codes.md): a code the lock refuses at its
 * keypad is a `keypad_refused` event — no performer, never the code, for the lock's owners and
 * admins only — and the simulated Nuki Keypad waits 30 s after 5 wrong codes in a row, as the real
 * one does, taking no code meanwhile. Real HTTP on loopback; the demo's Back Door (a simulated
 * Nuki with a keypad) driven by the demo's `keypad` control line; the lock's clock is the
 * service's manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loginOverHttp } from '../../support/oauth-login.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { call, type ApiResponse } from '../ekeys/household.js';

type Event = Record<string, unknown> & { id: string; type: string };

describe('wrong codes at the keypad (finding 6)', () => {
  let test: TestService;
  let backDoor: string;
  let guestCode: string;
  const tokens = new Map<number, string>();

  const tokenOf = async (index: number): Promise<string> => {
    const known = tokens.get(index);
    if (known !== undefined) return known;
    const user = test.demo.users[index];
    const client = test.demo.clients[0];
    if (!user || !client) throw new Error('demo household incomplete');
    const token = (await loginOverHttp({ baseUrl: test.baseUrl, client, email: user.email, password: user.password })).access_token;
    tokens.set(index, token);
    return token;
  };
  const api = async (index: number, method: string, path: string, body?: unknown): Promise<ApiResponse> => call(test.baseUrl, await tokenOf(index), method, path, body);
  const keypad = async (code: string): Promise<string> => {
    const answer = JSON.parse((await test.service.demoControl?.handleLine(JSON.stringify({ op: 'keypad', lock_id: backDoor, code, action: 'unlock' }))) ?? '{}') as { ok: boolean; result?: string; observed?: boolean };
    expect(answer).toMatchObject({ ok: true });
    expect(answer.observed).toBeUndefined();
    return answer.result ?? '';
  };
  const refusals = async (index: number): Promise<ApiResponse> => api(index, 'GET', `/locks/${backDoor}/events?type=keypad_refused&limit=50`);
  /** A six-digit code that is nobody's: digits 1–9, not starting with 12. */
  const wrongCode = (index: number): string => `9${String(87_651 - index)}`.replace(/0/g, '9');

  beforeAll(async () => {
    test = await startTestService();
    await test.service.lockSubsystem.ready();
    const lock = test.demo.locks.find((entry) => entry.name === 'Back Door');
    if (!lock) throw new Error('no Back Door');
    backDoor = lock.id;
    const guest = test.demo.users[1];
    const admin = test.demo.users[2];
    if (!guest || !admin) throw new Error('demo household incomplete');
    const sent = await api(0, 'POST', '/ekey', { email: guest.email, lock_id: backDoor, type: 'anytime', door_code: true });
    expect(sent.status).toBe(201);
    expect((await api(0, 'POST', '/ekey', { email: admin.email, lock_id: backDoor, type: 'admin' })).status).toBe(201);
    await test.service.lockSubsystem.doorCodeSync?.settled();
    const own = (await api(1, 'GET', `/users/${guest.id}/ekeys`)).body.ekeys as unknown as { lock_id: string; door_code: { code: string | null } | null }[];
    guestCode = own.find((key) => key.lock_id === backDoor)?.door_code?.code ?? '';
    expect(guestCode).toMatch(/^[1-9]{6}$/);
  });

  afterAll(async () => {
    await test.close();
  });

  it('records a refused code as keypad_refused, without performer or code, for owners and admins only', async () => {
    const wrong = wrongCode(0);
    expect(wrong).not.toBe(guestCode);
    expect(await keypad(wrong)).toBe('refused');

    const forOwner = await refusals(0);
    expect(forOwner.status).toBe(200);
    const events = forOwner.body.lock_events as Event[];
    expect(events).toHaveLength(1);
    expect(events[0]).toEqual({ id: expect.any(String), type: 'keypad_refused', lock_id: backDoor, timestamp: expect.stringMatching(/Z$/) });
    expect(forOwner.text).not.toContain(wrong);
    expect((await refusals(2)).body.lock_events).toHaveLength(1);
    // A guest on the lock does not learn that someone tries codes (nor when).
    const forGuest = await refusals(1);
    expect(forGuest.status).toBe(200);
    expect(forGuest.body.lock_events).toEqual([]);
    expect((await api(1, 'GET', `/locks/${backDoor}/events?limit=50`)).body.lock_events as Event[]).not.toContainEqual(expect.objectContaining({ type: 'keypad_refused' }));
    expect(test.logger.text()).not.toContain(wrong);

    // The right code still opens, and is the guest's tap with the door code.
    expect(await keypad(guestCode)).toBe('unlocked');
  });

  it('waits 30 s after 5 wrong codes in a row, taking no code meanwhile (not even the right one), as the real keypad does', async () => {
    const before = ((await refusals(0)).body.lock_events as Event[]).length;
    for (let index = 1; index <= 5; index += 1) expect(await keypad(wrongCode(index))).toBe('refused');
    expect(((await refusals(0)).body.lock_events as Event[]).length).toBe(before + 5);
    // Locked out: the right code is refused too, and nothing reaches the lock's log.
    expect(await keypad(guestCode)).toBe('refused');
    expect(await keypad(wrongCode(6))).toBe('refused');
    expect(((await refusals(0)).body.lock_events as Event[]).length).toBe(before + 5);
    test.clock.advance(29_000);
    expect(await keypad(guestCode)).toBe('refused');
    test.clock.advance(1_000);
    expect(await keypad(guestCode)).toBe('unlocked');
    // A right code starts the count afresh: one wrong code does not lock the keypad again.
    expect(await keypad(wrongCode(7))).toBe('refused');
    expect(await keypad(guestCode)).toBe('unlocked');
  });
});
