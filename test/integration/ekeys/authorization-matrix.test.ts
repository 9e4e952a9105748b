/**
 * The authorization matrix: every eKey endpoint × every relation a caller can have to the lock
 * (docs/design.md §3 eKeys, spec: eKey action permissions). Expected statuses are written out in full,
 * and no answer other than a 200 for an entitled caller may carry another user's data.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildHousehold, ROLES, type Household, type Member, type Role } from './household.js';

/** Setup signs several users in (scrypt) and may share the machine with other suites. */
const SETUP_TIMEOUT_MS = 120_000;

let household: Household;

beforeAll(async () => {
  household = await buildHousehold();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await household.test.close();
});

/** Expected statuses, one per role, in the order of ROLES. */
type Row = Record<Role, number>;

const row = (...statuses: number[]): Row => Object.fromEntries(ROLES.map((role, index) => [role, statuses[index] ?? 0])) as Row;

function keyOf(member: Member): string {
  if (member.keyId === undefined) throw new Error(`${member.email} holds no key`);
  return member.keyId;
}

/** A 404 must say nothing about the object: no ids, names or e-mails of anyone else. */
function expectNoLeak(text: string, caller: Member): void {
  const { bystander, members } = household;
  for (const secret of [bystander.keyId, bystander.id, bystander.email, 'Bystander']) expect(text).not.toContain(secret);
  for (const member of Object.values(members)) {
    if (member === caller) continue;
    expect(text).not.toContain(member.email);
    if (member.keyId !== undefined) expect(text).not.toContain(member.keyId);
  }
}

describe('authorization matrix', () => {
  //                    owner admin anytime schedIn schedOut guest revoked stranger
  const cases: { name: string; expected: Row; send: (caller: Member) => [string, string, unknown?] }[] = [
    { name: "GET /ekey/{another user's key}", expected: row(200, 200, 404, 404, 404, 404, 404, 404), send: () => ['GET', `/ekey/${household.bystander.keyId}`] },
    { name: "GET /ekeys/{another user's key} (alias)", expected: row(200, 200, 404, 404, 404, 404, 404, 404), send: () => ['GET', `/ekeys/${household.bystander.keyId.toUpperCase()}`] },
    { name: 'GET /locks/{lock_id}/ekeys', expected: row(200, 200, 200, 200, 404, 200, 404, 404), send: () => ['GET', `/locks/${household.frontDoor.id}/ekeys`] },
    { name: "GET /users/{another user}/locks", expected: row(404, 404, 404, 404, 404, 404, 404, 404), send: () => ['GET', `/users/${household.bystander.id}/locks`] },
    { name: "GET /user/{another user}/locks (alias)", expected: row(404, 404, 404, 404, 404, 404, 404, 404), send: () => ['GET', `/user/${household.bystander.id}/locks`] },
    { name: "GET /users/{a key holder} (visibility installed by the eKey service)", expected: row(200, 200, 404, 404, 404, 404, 404, 404), send: () => ['GET', `/users/${household.bystander.id}`] },
    { name: "PUT /ekey/{another user's key} rename", expected: row(200, 200, 404, 404, 404, 404, 404, 404), send: (caller) => ['PUT', `/ekey/${household.bystander.keyId}`, { name: `Renamed by ${caller.id.slice(0, 8)}` }] },
    { name: "PUT /ekeys/{another user's key} reschedule (alias)", expected: row(200, 200, 404, 404, 404, 404, 404, 404), send: () => ['PUT', `/ekeys/${household.bystander.keyId}`, { valid_to: '2030-01-01T00:00:00Z' }] },
    { name: 'POST /ekey (send a guest key)', expected: row(201, 201, 403, 403, 404, 403, 404, 404), send: (caller) => ['POST', '/ekey', { email: `sent-by-${caller.id}@example.net`, lock_id: household.frontDoor.id, type: 'guest' }] },
    { name: 'POST /ekeys (send, alias)', expected: row(201, 201, 403, 403, 404, 403, 404, 404), send: (caller) => ['POST', '/ekeys', { email: `alias-by-${caller.id}@example.net`, lock_id: household.frontDoor.id, type: 'anytime' }] },
    { name: 'POST /ekey an owner key', expected: row(201, 403, 403, 403, 404, 403, 404, 404), send: (caller) => ['POST', '/ekey', { email: `owner-by-${caller.id}@example.net`, lock_id: household.frontDoor.id, type: 'owner' }] },
    { name: 'POST /ekey for a lock the caller cannot see', expected: row(201, 404, 404, 404, 404, 404, 404, 404), send: (caller) => ['POST', '/ekey', { email: `gate-by-${caller.id}@example.net`, lock_id: household.gardenGate.id, type: 'guest' }] },
  ];

  for (const testCase of cases) {
    describe(testCase.name, () => {
      for (const role of ROLES) {
        it(`answers ${role} with ${testCase.expected[role]}`, async () => {
          const caller = household.members[role];
          const [method, path, body] = testCase.send(caller);
          const answer = await household.request(caller, method, path, body);
          expect(answer.status).toBe(testCase.expected[role]);
          if (answer.status >= 400) {
            expect(answer.contentType).toContain('application/problem+json');
            expectNoLeak(answer.text, caller);
          }
        });
      }
    });
  }

  describe('own key', () => {
    const holders = ROLES.filter((role) => role !== 'stranger');

    it.each(holders)('GET /ekey/{own key} shows %s their key', async (role) => {
      const caller = household.members[role];
      const answer = await household.request(caller, 'GET', `/ekey/${keyOf(caller)}`);
      expect(answer.status).toBe(200);
      expect(answer.body.user_id).toBe(caller.id);
    });

    //                            owner admin anytime schedIn schedOut guest revoked
    const rename: Record<string, number> = { owner: 200, admin: 200, anytime: 200, scheduledIn: 200, scheduledOut: 200, guest: 200, revoked: 409 };
    it.each(holders)('PUT /ekey/{own key} rename: %s', async (role) => {
      const caller = household.members[role];
      const answer = await household.request(caller, 'PUT', `/ekey/${keyOf(caller)}`, { name: `My ${role} key` });
      expect(answer.status).toBe(rename[role]);
      if (answer.status === 409) expect(answer.body.code).toBe('ekey_revoked');
    });

    // Reschedule is not in a guest-role holder's rights; 403 comes before the revoked key's 409.
    const reschedule: Record<string, number> = { owner: 200, admin: 200, anytime: 403, scheduledIn: 403, scheduledOut: 403, guest: 403, revoked: 403 };
    it.each(holders)('PUT /ekey/{own key} reschedule: %s', async (role) => {
      const caller = household.members[role];
      const answer = await household.request(caller, 'PUT', `/ekey/${keyOf(caller)}`, { valid_to: '1/1/2031 12:00:00 AM' });
      expect(answer.status).toBe(reschedule[role]);
    });

    // The grant action: nobody raises their own key above their type; guests may not grant at all.
    const upgrade: Record<string, number> = { owner: 400, admin: 403, anytime: 403, scheduledIn: 403, scheduledOut: 403, guest: 403, revoked: 403 };
    it.each(holders)('PUT /ekey/{own key} type owner: %s', async (role) => {
      const caller = household.members[role];
      const answer = await household.request(caller, 'PUT', `/ekey/${keyOf(caller)}`, { type: role === 'owner' ? null : 'owner' });
      expect(answer.status).toBe(upgrade[role]);
    });

    it('lists only their own key to guest-role holders, every key to owners and admins', async () => {
      const all = await household.request(household.members.admin, 'GET', `/locks/${household.frontDoor.id}/ekeys`);
      expect(all.body.ekeys?.map((key) => key.id)).toEqual(expect.arrayContaining([household.bystander.keyId, keyOf(household.members.revoked)]));
      for (const role of ['anytime', 'scheduledIn', 'guest'] as const) {
        const caller = household.members[role];
        const answer = await household.request(caller, 'GET', `/locks/${household.frontDoor.id.toUpperCase()}/ekeys`);
        expect(answer.body.ekeys?.map((key) => key.user_id)).toEqual([caller.id]);
      }
    });

    it.each([
      ['owner', ['Back Door', 'Building Door', 'Front Door', 'Garden Gate', 'Side Door']],
      ['admin', ['Front Door']],
      ['anytime', ['Front Door']],
      ['scheduledIn', ['Front Door']],
      ['scheduledOut', []],
      ['guest', ['Front Door']],
      ['revoked', []],
      ['stranger', []],
    ] as const)('GET /users/{self}/locks lists the usable locks of %s', async (role, names) => {
      const caller = household.members[role];
      for (const base of ['/users', '/user']) {
        const answer = await household.request(caller, 'GET', `${base}/${caller.id.toUpperCase()}/locks`);
        expect(answer.status).toBe(200);
        expect(answer.body.locks?.map((lock) => lock.name)).toEqual(names);
      }
    });
  });

  describe('DELETE', () => {
    /** A fresh key held by someone else, so each cell revokes its own target. */
    async function freshTarget(): Promise<string> {
      const answer = await household.request(household.members.owner, 'POST', '/ekey', {
        email: `target-${Math.random().toString(36).slice(2)}@example.org`,
        lock_id: household.frontDoor.id,
        type: 'anytime',
      });
      expect(answer.status).toBe(201);
      return String(answer.body.id);
    }

    const expected = row(200, 200, 404, 404, 404, 404, 404, 404);
    it.each(ROLES)("DELETE /ekey/{another user's key}: %s", async (role) => {
      const target = await freshTarget();
      const answer = await household.request(household.members[role], 'DELETE', `/ekey/${target}`);
      expect(answer.status).toBe(expected[role]);
      const after = await household.request(household.members.owner, 'GET', `/ekey/${target}`);
      expect(after.body.status).toBe(expected[role] === 200 ? 'revoked' : 'pending');
    });

    it.each(ROLES)("DELETE /ekeys/{another user's key}?purge=true: %s", async (role) => {
      const target = await freshTarget();
      const answer = await household.request(household.members[role], 'DELETE', `/ekeys/${target}?purge=true`);
      expect(answer.status).toBe(expected[role]);
      const after = await household.request(household.members.owner, 'GET', `/ekey/${target}`);
      expect(after.status).toBe(expected[role] === 200 ? 404 : 200);
    });

    it("refuses to revoke the lock owner's last owner key (409), even for the owner", async () => {
      const ownKey = keyOf(household.members.owner);
      const answer = await household.request(household.members.owner, 'DELETE', `/ekey/${ownKey}`);
      expect(answer.status).toBe(409);
      expect(answer.body.code).toBe('last_owner_key');
      const admin = await household.request(household.members.admin, 'DELETE', `/ekey/${ownKey}`);
      expect(admin.status).toBe(403);
      expect(admin.body.code).toBe('owner_key_protected');
    });

    it('lets a guest-role holder give up its own key: revoked and removed', async () => {
      const guest = household.members.guest;
      const answer = await household.request(guest, 'DELETE', `/ekey/${keyOf(guest)}`);
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('revoked');
      expect((await household.request(guest, 'GET', `/ekey/${keyOf(guest)}`)).status).toBe(404);
      expect((await household.request(household.members.owner, 'GET', `/ekey/${keyOf(guest)}`)).status).toBe(404);
    });

    it('lets an admin revoke its own key, after which it can no longer send', async () => {
      const admin = household.members.admin;
      const answer = await household.request(admin, 'DELETE', `/ekey/${keyOf(admin)}`);
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('revoked');
      const send = await household.request(admin, 'POST', '/ekey', { email: 'late@example.com', lock_id: household.frontDoor.id, type: 'guest' });
      expect(send.status).toBe(422);
      expect(send.body.code).toBe('ekey_sending_withdrawn');
    });
  });
});
