import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { verifyPassword } from '../../../src/auth/password.js';
import { INVITATION_TTL_MS } from '../../../src/access/invitation-service.js';
import { createAccessFixture, type AccessFixture } from './access-fixture.js';

let fx: AccessFixture;
beforeEach(() => {
  fx = createAccessFixture();
});
afterEach(() => {
  fx.db.close();
});

async function invite(email: string): Promise<string> {
  fx.service.send(fx.owner.id, { email, lock_id: fx.lockId, type: 'anytime' });
  await fx.invitations.whenIdle();
  const link = fx.mailer.sent.at(-1)?.link ?? '';
  return link.slice(link.lastIndexOf('/') + 1);
}

describe('InvitationService', () => {
  it('signs the invited user up and accepts their pending keys in one go', async () => {
    const token = await invite('newbie@example.com');
    expect(fx.invitations.describe(token)).toEqual({
      state: 'open',
      email: 'newbie@example.com',
      name: 'newbie',
      locks: ['Front Door'],
      inviter: fx.owner.name,
      keys: [{ lock: 'Front Door', zone: expect.any(String), type: 'anytime', message: null, valid_from: null, valid_to: null, schedule_start: null, schedule_end: null, door_code: false }],
    });
    const result = await fx.invitations.signUp(token, { name: ' Nora Newbie ', password: 'long enough' });
    expect(result.acceptedKeys).toBe(1);
    const user = fx.users.findById(result.userId);
    expect(user?.name).toBe('Nora Newbie');
    expect(await verifyPassword('long enough', user?.passwordHash ?? '')).toBe(true);
    expect(fx.ekeys.listByUser(result.userId).map((key) => key.status)).toEqual(['accepted']);
    expect(fx.invitations.describe(token)).toEqual({ state: 'accepted', email: 'newbie@example.com' });
    await expect(fx.invitations.signUp(token, { name: 'Again', password: 'long enough' })).rejects.toMatchObject({ status: 409, code: 'invitation_used' });
  });

  it('gives a second key to an invited user as pending too, and accepts both on sign-up', async () => {
    const token = await invite('twice@example.com');
    const invited = fx.users.findByEmail('twice@example.com');
    fx.locks.upsert({ ...(fx.locks.findById(fx.lockId) ?? fail()), id: '11111111-1111-4111-8111-111111111111', name: 'Back Door' });
    fx.locks.ensureOwnerKey('11111111-1111-4111-8111-111111111111', fx.owner.id, 'aaaaaaaa-1111-4111-8111-111111111111', 0);
    const second = fx.service.send(fx.owner.id, { email: 'twice@example.com', lock_id: '11111111-1111-4111-8111-111111111111', type: 'guest' });
    expect(second.status).toBe('pending');
    const result = await fx.invitations.signUp(token, { name: 'Tw Ice', password: 'long enough' });
    expect(result).toMatchObject({ userId: invited?.id, acceptedKeys: 2 });
  });

  it('says an invitation whose keys were all taken back is withdrawn, and refuses to sign up through it', async () => {
    const token = await invite('gone@example.com');
    const key = fx.ekeys.listPendingByUser(fx.users.findByEmail('gone@example.com')?.id ?? '')[0];
    expect(key).toBeDefined();
    fx.service.remove(fx.owner.id, key?.id ?? '');
    expect(fx.invitations.describe(token)).toEqual({ state: 'withdrawn', email: 'gone@example.com' });
    await expect(fx.invitations.signUp(token, { name: 'Gone', password: 'long enough' })).rejects.toMatchObject({ status: 410, code: 'invitation_withdrawn' });
  });

  it('describes each pending key with its message and window, and who sent it', async () => {
    fx.service.send(fx.owner.id, {
      email: 'weekly@example.com',
      lock_id: fx.lockId,
      type: 'scheduled',
      message: 'Welcome!',
      schedule_start: '0 9 * * 1-5 *',
      schedule_end: '0 17 * * 1-5 *',
    });
    await fx.invitations.whenIdle();
    const link = fx.mailer.sent.at(-1)?.link ?? '';
    const state = fx.invitations.describe(link.slice(link.lastIndexOf('/') + 1));
    expect(state).toMatchObject({ state: 'open', inviter: fx.owner.name, keys: [{ lock: 'Front Door', type: 'scheduled', message: 'Welcome!', schedule_start: '0 9 * * 1-5 *' }] });
  });

  it('refuses expired, unknown and malformed links, and bad form values', async () => {
    const token = await invite('late@example.com');
    await expect(fx.invitations.signUp(token, { name: '', password: 'short' })).rejects.toMatchObject({ status: 400, errors: [{ field: '/name' }, { field: '/password' }] });
    fx.clock.advance(INVITATION_TTL_MS);
    expect(fx.invitations.describe(token)).toEqual({ state: 'expired' });
    await expect(fx.invitations.signUp(token, { name: 'Late', password: 'long enough' })).rejects.toMatchObject({ status: 410 });
    expect(fx.invitations.describe('x'.repeat(43))).toEqual({ state: 'unknown' });
    expect(fx.invitations.describe('../../etc')).toEqual({ state: 'unknown' });
    await expect(fx.invitations.signUp('nope', { name: 'N', password: 'long enough' })).rejects.toMatchObject({ status: 404 });
  });
});

function fail(): never {
  throw new Error('fixture lock missing');
}
