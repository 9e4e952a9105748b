/**
 * Issue #32, finding 1 (docs/design.md §4c): an ex-admin keeps the owner's door. A door code's
 * digits go to its holder; the codes of keys below admin also to the lock's owners and admins; an
 * owner or admin key's code to its holder alone; while a key is `removing`, to nobody. Real HTTP
 * on loopback, the demo's Back Door (a simulated Nuki with a keypad) judged through the demo's
 * `keypad` control line.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loginOverHttp } from '../../support/oauth-login.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { call, type ApiResponse } from '../ekeys/household.js';

interface DoorCode {
  code: string | null;
  state: string;
}
type Key = { id: string; user_id: string; lock_id: string; type: string; door_code: DoorCode | null };

describe('who sees a door code (finding 1)', () => {
  let test: TestService;
  let backDoor: string;
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
  const userId = (index: number): string => {
    const user = test.demo.users[index];
    if (!user) throw new Error(`no demo user ${index}`);
    return user.id;
  };
  const api = async (index: number, method: string, path: string, body?: unknown): Promise<ApiResponse> => call(test.baseUrl, await tokenOf(index), method, path, body);
  const keypad = async (code: string): Promise<string> => {
    const answer = JSON.parse((await test.service.demoControl?.handleLine(JSON.stringify({ op: 'keypad', lock_id: backDoor, code, action: 'unlock' }))) ?? '{}') as {
      ok: boolean;
      result?: string;
    };
    expect(answer.ok).toBe(true);
    return answer.result ?? '';
  };
  const settled = async (): Promise<void> => {
    await test.service.lockSubsystem.doorCodeSync?.settled();
  };

  // 0 owner (a code on their owner key), 1 admin, 2 a second admin, 3 an anytime holder: each with a code.
  const keys = new Map<number, Key>();
  const digits = new Map<number, string>();

  beforeAll(async () => {
    test = await startTestService();
    await test.service.lockSubsystem.ready();
    const lock = test.demo.locks.find((entry) => entry.name === 'Back Door');
    if (!lock) throw new Error('no Back Door');
    backDoor = lock.id;
    const ownerKey = ((await api(0, 'GET', `/locks/${backDoor}/ekeys`)).body.ekeys ?? []).find((key) => key.user_id === userId(0));
    if (!ownerKey) throw new Error('the owner holds no key on Back Door');
    const coded = await api(0, 'PUT', `/ekey/${ownerKey.id}`, { door_code: true });
    expect(coded.status).toBe(200);
    keys.set(0, coded.body as unknown as Key);
    for (const [index, type] of [
      [1, 'admin'],
      [2, 'admin'],
      [3, 'anytime'],
    ] as const) {
      const user = test.demo.users[index];
      if (!user) throw new Error('demo household incomplete');
      const sent = await api(0, 'POST', '/ekey', { email: user.email, lock_id: backDoor, type, door_code: true });
      expect(sent.status).toBe(201);
      keys.set(index, sent.body as unknown as Key);
    }
    await settled();
    // Each holder reads their own digits from their own list.
    for (const index of [0, 1, 2, 3]) {
      const own = (await api(index, 'GET', `/users/${userId(index)}/ekeys`)).body.ekeys as unknown as Key[];
      const code = own.find((key) => key.lock_id === backDoor)?.door_code?.code;
      if (typeof code !== 'string') throw new Error(`holder ${index} sees no code of their own`);
      digits.set(index, code);
    }
  });

  afterAll(async () => {
    await test.close();
  });

  const codeSeenBy = (list: Key[], index: number): string | null | undefined => list.find((key) => key.id === keys.get(index)?.id)?.door_code?.code;

  it("an admin sees the codes of the keys they manage, never an owner's or another admin's", async () => {
    const list = (await api(1, 'GET', `/locks/${backDoor}/ekeys`)).body.ekeys as unknown as Key[];
    expect(codeSeenBy(list, 0)).toBeNull();
    expect(codeSeenBy(list, 2)).toBeNull();
    expect(codeSeenBy(list, 1)).toBe(digits.get(1));
    expect(codeSeenBy(list, 3)).toBe(digits.get(3));
    // The state stays visible: the admin still sees that the lock holds it.
    expect(list.find((key) => key.id === keys.get(0)?.id)?.door_code?.state).toBe('set');
    const single = (await api(1, 'GET', `/ekey/${keys.get(0)?.id ?? ''}`)).body as unknown as Key;
    expect(single.door_code).toMatchObject({ code: null, state: 'set' });
    expect(((await api(1, 'GET', `/ekeys/${keys.get(2)?.id ?? ''}`)).body as unknown as Key).door_code?.code).toBeNull();
  });

  it("the owner sees the codes of keys below admin, not an admin's; the holder sees their own", async () => {
    const list = (await api(0, 'GET', `/locks/${backDoor}/ekeys`)).body.ekeys as unknown as Key[];
    expect(codeSeenBy(list, 0)).toBe(digits.get(0));
    expect(codeSeenBy(list, 1)).toBeNull();
    expect(codeSeenBy(list, 3)).toBe(digits.get(3));
    expect(((await api(3, 'GET', `/ekey/${keys.get(3)?.id ?? ''}`)).body as unknown as Key).door_code?.code).toBe(digits.get(3));
  });

  it('a revoked admin leaves with nothing: their own code is hidden while removed and refused at the keypad; the owner’s still opens for the owner', async () => {
    const revoked = await api(0, 'DELETE', `/ekey/${keys.get(1)?.id ?? ''}`);
    expect(revoked.status).toBe(200);
    // While the lock has not confirmed the removal, nobody sees the digits (also not the owner who revoked).
    expect((revoked.body as unknown as Key).door_code).toMatchObject({ state: 'removing', code: null });
    const ownWhileRemoving = (await api(1, 'GET', `/users/${userId(1)}/ekeys`)).body.ekeys as unknown as Key[];
    expect(ownWhileRemoving.find((key) => key.id === keys.get(1)?.id)?.door_code?.code ?? null).toBeNull();
    await settled();
    // Everything the ex-admin ever saw: their own code, which no longer opens the door.
    expect(await keypad(digits.get(1) ?? '')).toBe('refused');
    expect(await keypad(digits.get(0) ?? '')).toBe('unlocked');
    // The ex-admin no longer sees the lock's keys at all.
    expect((await api(1, 'GET', `/locks/${backDoor}/ekeys`)).status).toBe(404);
  });
});
