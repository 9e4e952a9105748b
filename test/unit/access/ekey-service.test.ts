import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ServiceError } from '../../../src/domain/errors.js';
import type { InvitationService } from '../../../src/access/invitation-service.js';
import { EKeyService } from '../../../src/access/ekey-service.js';
import { createAccessFixture, START, type AccessFixture } from './access-fixture.js';
import { thrownError } from '../../support/thrown-error.js';

const HOUR = 3_600_000;

let fx: AccessFixture;
beforeEach(() => {
  fx = createAccessFixture();
});
afterEach(() => {
  fx.db.close();
});

/** Runs `work` and returns the ServiceError it throws (failing the test when it does not throw one). */
const serviceError = (work: () => unknown): ServiceError => thrownError(ServiceError, work);

describe('EKeyService.send', () => {
  it('gives a known recipient an accepted key, DateTimes in the lock zone, no schedule as null', () => {
    const alex = fx.addUser('Alex');
    const key = fx.service.send(fx.owner.id, {
      email: 'ALEX@example.com',
      lock_id: fx.lockId.toUpperCase(),
      type: 'anytime',
      valid_from: '3/10/2026 8:00:00 AM',
      valid_to: '2026-04-01T10:00:00+02:00',
      name: 'Alex',
    });
    expect(key).toEqual({
      id: expect.any(String),
      name: 'Alex',
      type: 'anytime',
      status: 'accepted',
      valid_from: '3/10/2026 8:00:00 AM',
      valid_to: '4/1/2026 10:00:00 AM',
      schedule_start: null,
      schedule_end: null,
      message: null,
      user_id: alex.id,
      lock_id: fx.lockId,
      door_code: null,
    });
    expect(Object.keys(key)).toEqual(['id', 'name', 'type', 'status', 'valid_from', 'valid_to', 'schedule_start', 'schedule_end', 'message', 'user_id', 'lock_id', 'door_code']);
  });

  it('gives a guest key 24 hours from now when valid_from is omitted', () => {
    fx.addUser('Gina');
    const key = fx.service.send(fx.owner.id, { email: 'gina@example.com', lock_id: fx.lockId, type: 'guest' });
    expect(key.valid_from).toBe('3/9/2026 10:00:00 AM');
    expect(key.valid_to).toBe('3/10/2026 10:00:00 AM');
    expect(fx.service.usableKeyFor(key.user_id, fx.lockId, START + 24 * HOUR - 1)?.id).toBe(key.id);
    expect(fx.service.usableKeyFor(key.user_id, fx.lockId, START + 24 * HOUR)).toBeUndefined();
  });

  it('invites an unknown address: invited user, pending key, invitation with a link', async () => {
    const key = fx.service.send(fx.owner.id, { email: 'New.Person@Example.com', lock_id: fx.lockId, type: 'anytime', message: 'Welcome!' });
    expect(key.status).toBe('pending');
    const invited = fx.users.findByEmail('new.person@example.com');
    expect(invited?.passwordHash).toBeNull();
    expect(key.user_id).toBe(invited?.id);
    expect(fx.service.usableKeyFor(key.user_id, fx.lockId, START)).toBeUndefined();
    await fx.invitations.whenIdle();
    expect(fx.mailer.sent).toHaveLength(1);
    expect(fx.mailer.sent[0]).toMatchObject({ to: 'New.Person@Example.com', lockName: 'Front Door', senderName: 'Olivia', personalMessage: 'Welcome!' });
    expect(fx.mailer.sent[0]?.link).toMatch(/^https:\/\/locks\.example\.com\/invitations\/[A-Za-z0-9_-]{43}$/);
  });

  it('logs that the mail server failed, without the link, and still keeps the key', async () => {
    fx.mailer.fail = true;
    const key = fx.service.send(fx.owner.id, { email: 'nomail@example.com', lock_id: fx.lockId, type: 'guest' });
    await fx.invitations.whenIdle();
    expect(fx.ekeys.findById(key.id)?.status).toBe('pending');
    // The link is a secret: with SMTP configured it is never logged, not even when sending fails.
    expect(fx.logger.text()).toMatch(/Could not e-mail the eKey invitation to nomail@example\.com \(mail server said no\); its acceptance link is not logged/);
    expect(fx.logger.text()).not.toMatch(/\/invitations\//);
  });

  it('refuses a second live key for the same user and lock (409 ekey_exists)', () => {
    fx.addUser('Alex');
    fx.service.send(fx.owner.id, { email: 'alex@example.com', lock_id: fx.lockId, type: 'anytime' });
    const error = serviceError(() => fx.service.send(fx.owner.id, { email: 'alex@example.com', lock_id: fx.lockId, type: 'guest' }));
    expect([error.status, error.code]).toEqual([409, 'ekey_exists']);
  });

  it('allows a new key once the old one is revoked', () => {
    fx.addUser('Alex');
    const first = fx.service.send(fx.owner.id, { email: 'alex@example.com', lock_id: fx.lockId, type: 'anytime' });
    fx.service.remove(fx.owner.id, first.id);
    expect(fx.service.send(fx.owner.id, { email: 'alex@example.com', lock_id: fx.lockId, type: 'guest' }).status).toBe('accepted');
  });

  it('reports a permission failure (403) before a conflict (409)', () => {
    const adam = fx.addUser('Adam');
    fx.addUser('Alex');
    fx.service.send(fx.owner.id, { email: adam.email, lock_id: fx.lockId, type: 'admin' });
    fx.service.send(fx.owner.id, { email: 'alex@example.com', lock_id: fx.lockId, type: 'anytime' });
    const error = serviceError(() => fx.service.send(adam.id, { email: 'alex@example.com', lock_id: fx.lockId, type: 'owner' }));
    expect([error.status, error.code]).toEqual([403, 'owner_key_protected']);
  });

  it('answers 404 to a caller without a usable key and 403 to a guest-role caller', () => {
    const stranger = fx.addUser('Stranger');
    expect(serviceError(() => fx.service.send(stranger.id, { email: 'x@example.com', lock_id: fx.lockId, type: 'guest' })).status).toBe(404);
    const anna = fx.addUser('Anna');
    fx.service.send(fx.owner.id, { email: anna.email, lock_id: fx.lockId, type: 'anytime' });
    const error = serviceError(() => fx.service.send(anna.id, { email: 'x@example.com', lock_id: fx.lockId, type: 'guest' }));
    expect([error.status, error.code]).toEqual([403, 'action_not_permitted']);
  });

  it('applies the sender quota (402) to live keys sent; revoking one frees a slot', () => {
    const adam = fx.addUser('Adam', { ekeyQuota: 2 });
    fx.service.send(fx.owner.id, { email: adam.email, lock_id: fx.lockId, type: 'admin' });
    const first = fx.service.send(adam.id, { email: 'one@example.com', lock_id: fx.lockId, type: 'guest' });
    fx.service.send(adam.id, { email: 'two@example.com', lock_id: fx.lockId, type: 'guest' });
    const error = serviceError(() => fx.service.send(adam.id, { email: 'three@example.com', lock_id: fx.lockId, type: 'guest' }));
    expect([error.status, error.code]).toEqual([402, 'ekey_quota_exhausted']);
    expect(fx.users.findByEmail('three@example.com')).toBeUndefined();
    fx.service.remove(adam.id, first.id);
    expect(fx.service.send(adam.id, { email: 'three@example.com', lock_id: fx.lockId, type: 'guest' }).status).toBe('pending');
  });

  it.each([
    ['the operator withdrew it (can_send_ekeys false)', (fixture: AccessFixture, adamId: string): void => {
      const adam = fixture.users.findById(adamId);
      if (adam) fixture.users.update({ ...adam, canSendEkeys: false });
    }],
    ['their admin key was revoked', (fixture: AccessFixture, _adamId: string, keyId: string): void => {
      fixture.service.remove(fixture.owner.id, keyId);
    }],
    ['their admin key expired', (fixture: AccessFixture): void => {
      fixture.clock.advance(48 * HOUR);
    }],
  ])('answers 422 ekey_sending_withdrawn when %s', (_label, withdraw) => {
    const adam = fx.addUser('Adam');
    const key = fx.service.send(fx.owner.id, { email: adam.email, lock_id: fx.lockId, type: 'admin', valid_to: '3/10/2026 10:00:00 AM' });
    expect(fx.service.send(adam.id, { email: 'before@example.com', lock_id: fx.lockId, type: 'guest' }).status).toBe('pending');
    withdraw(fx, adam.id, key.id);
    const error = serviceError(() => fx.service.send(adam.id, { email: 'after@example.com', lock_id: fx.lockId, type: 'guest' }));
    expect([error.status, error.code]).toEqual([422, 'ekey_sending_withdrawn']);
  });

  it('validates fields in the lock zone (400 with field errors)', () => {
    const error = serviceError(() =>
      fx.service.send(fx.owner.id, { email: 'not-an-email', lock_id: fx.lockId, type: 'scheduled', valid_from: '13/1/2026 1:00:00 AM', schedule_start: '0 25 * * * *' }),
    );
    expect(error.status).toBe(400);
    expect(error.errors?.map((item) => item.field)).toEqual(expect.arrayContaining(['/email', '/valid_from', '/schedule_start']));
  });

  it('writes nothing when any part of the send fails (one transaction)', () => {
    const failing = {
      issue: () => {
        throw new Error('disk full');
      },
      deliver: () => undefined,
    } as unknown as InvitationService;
    const service = new EKeyService({ ekeys: fx.ekeys, locks: fx.locks, users: fx.users, invitations: failing, clock: fx.clock, transaction: (work) => fx.db.transaction(work)() });
    expect(() => service.send(fx.owner.id, { email: 'half@example.com', lock_id: fx.lockId, type: 'guest' })).toThrow('disk full');
    expect(fx.users.findByEmail('half@example.com')).toBeUndefined();
    expect(fx.ekeys.listByLock(fx.lockId)).toHaveLength(1);
  });
});

describe('EKeyService.usableKeyFor and roleOn', () => {
  it('follows a scheduled key across its window, in lock time, across midnight', () => {
    const sam = fx.addUser('Sam');
    // 22:00 to 06:00 Berlin time, Monday to Friday starts.
    const key = fx.service.send(fx.owner.id, { email: sam.email, lock_id: fx.lockId, type: 'scheduled', schedule_start: '0 22 * * 1-5 *', schedule_end: '0 6 * * * *' });
    const berlin = (day: number, hour: number): number => Date.UTC(2026, 2, day, hour - 1);
    expect(fx.service.usableKeyFor(sam.id, fx.lockId, berlin(9, 21))).toBeUndefined();
    expect(fx.service.usableKeyFor(sam.id, fx.lockId, berlin(9, 22))?.id).toBe(key.id);
    expect(fx.service.usableKeyFor(sam.id, fx.lockId, berlin(10, 5))?.id).toBe(key.id);
    expect(fx.service.usableKeyFor(sam.id, fx.lockId, berlin(10, 6))).toBeUndefined();
    expect(fx.service.roleOn(sam.id, fx.lockId.toUpperCase(), berlin(9, 23))).toBe('guest');
    expect(fx.service.roleOn(sam.id, fx.lockId, berlin(9, 12))).toBeNull();
  });

  it('keeps a daily window on the wall clock across the spring-forward day (Berlin, 29 March 2026)', () => {
    const sam = fx.addUser('Sam');
    fx.service.send(fx.owner.id, { email: sam.email, lock_id: fx.lockId, type: 'scheduled', schedule_start: '0 9 * * * *', schedule_end: '0 17 * * * *' });
    const cases: [string, boolean][] = [
      ['2026-03-28T07:59:00Z', false], // 08:59 CET
      ['2026-03-28T08:00:00Z', true], // 09:00 CET
      ['2026-03-29T06:59:00Z', false], // 08:59 CEST
      ['2026-03-29T07:00:00Z', true], // 09:00 CEST
      ['2026-03-29T14:59:00Z', true], // 16:59 CEST
      ['2026-03-29T15:00:00Z', false], // 17:00 CEST
    ];
    for (const [instant, usable] of cases) {
      expect([instant, fx.service.usableKeyFor(sam.id, fx.lockId, Date.parse(instant)) !== undefined]).toEqual([instant, usable]);
    }
  });

  it('gives a guest key 24 real hours across the DST change, shown in lock time', () => {
    fx.clock.set(Date.parse('2026-03-28T08:00:00Z'));
    const gina = fx.addUser('Gina');
    const key = fx.service.send(fx.owner.id, { email: gina.email, lock_id: fx.lockId, type: 'guest', valid_from: '3/28/2026 10:00:00 AM' });
    expect([key.valid_from, key.valid_to]).toEqual(['3/28/2026 10:00:00 AM', '3/29/2026 11:00:00 AM']);
  });

  it('stops a key at once when it is revoked', () => {
    const alex = fx.addUser('Alex');
    const key = fx.service.send(fx.owner.id, { email: alex.email, lock_id: fx.lockId, type: 'anytime' });
    expect(fx.service.usableKeyFor(alex.id, fx.lockId, START)?.id).toBe(key.id);
    fx.service.remove(fx.owner.id, key.id);
    expect(fx.service.usableKeyFor(alex.id, fx.lockId, START)).toBeUndefined();
    expect(fx.service.roleOn(alex.id, fx.lockId, START)).toBeNull();
  });

  it('answers roles from its cache only until a key or the lock is written', () => {
    const alex = fx.addUser('Alex');
    expect(fx.service.roleOn(alex.id, fx.lockId, START)).toBeNull();
    const key = fx.service.send(fx.owner.id, { email: alex.email, lock_id: fx.lockId, type: 'admin' });
    expect(fx.service.roleOn(alex.id, fx.lockId, START)).toBe('admin');
    fx.service.update(fx.owner.id, key.id, { type: 'anytime' });
    expect(fx.service.roleOn(alex.id, fx.lockId, START)).toBe('guest');
    fx.service.remove(fx.owner.id, key.id);
    expect(fx.service.roleOn(alex.id, fx.lockId, START)).toBeNull();
  });

  it('reads a schedule in the lock’s new time zone as soon as the lock is reconfigured', () => {
    const sam = fx.addUser('Sam');
    fx.service.send(fx.owner.id, { email: sam.email, lock_id: fx.lockId, type: 'scheduled', schedule_start: '0 9 * * * *', schedule_end: '0 17 * * * *' });
    const at = Date.parse('2026-03-10T16:30:00Z'); // 17:30 in Berlin, 12:30 in New York
    expect(fx.service.roleOn(sam.id, fx.lockId, at)).toBeNull();
    const lock = fx.locks.findById(fx.lockId);
    if (!lock) throw new Error('no lock');
    fx.locks.upsert({ ...lock, timeZone: 'America/New_York' });
    expect(fx.service.roleOn(sam.id, fx.lockId, at)).toBe('guest');
  });

  it('never grants from a key whose transaction rolled back', () => {
    const alex = fx.addUser('Alex');
    expect(() =>
      fx.db.transaction(() => {
        fx.service.send(fx.owner.id, { email: alex.email, lock_id: fx.lockId, type: 'admin' });
        expect(fx.service.roleOn(alex.id, fx.lockId, START)).toBe('admin');
        throw new Error('undo');
      })(),
    ).toThrow('undo');
    expect(fx.ekeys.listByUserOnLock(alex.id, fx.lockId)).toEqual([]);
    expect(fx.service.roleOn(alex.id, fx.lockId, START)).toBeNull();
  });

  it('knows the owner role and nothing for unknown locks', () => {
    expect(fx.service.roleOn(fx.owner.id, fx.lockId, START)).toBe('owner');
    expect(fx.service.roleOn(fx.owner.id, '00000000-0000-4000-8000-000000000000', START)).toBeNull();
    expect(fx.service.usableKeyFor(fx.owner.id, '00000000-0000-4000-8000-000000000000', START)).toBeUndefined();
  });
});

describe('EKeyService.update', () => {
  it('resets null properties, keeps absent ones, maps changes to actions', () => {
    const alex = fx.addUser('Alex');
    const key = fx.service.send(fx.owner.id, { email: alex.email, lock_id: fx.lockId, type: 'anytime', name: 'Alex', message: 'Hi', valid_to: '4/1/2026 12:00:00 PM' });
    const updated = fx.service.update(fx.owner.id, key.id.toUpperCase(), { name: null, valid_to: '4/2/2026 12:00:00 PM' });
    expect(updated).toMatchObject({ name: null, message: 'Hi', valid_to: '4/2/2026 12:00:00 PM', type: 'anytime' });
  });

  it('lets a holder rename its own key but not reschedule it (403)', () => {
    const alex = fx.addUser('Alex');
    const key = fx.service.send(fx.owner.id, { email: alex.email, lock_id: fx.lockId, type: 'anytime' });
    expect(fx.service.update(alex.id, key.id, { name: 'Mine' }).name).toBe('Mine');
    const error = serviceError(() => fx.service.update(alex.id, key.id, { valid_to: '4/2/2026 12:00:00 PM' }));
    expect([error.status, error.code]).toEqual([403, 'action_not_permitted']);
  });

  it('does not let an admin grant above its own type or touch owner keys', () => {
    const adam = fx.addUser('Adam');
    const alex = fx.addUser('Alex');
    fx.service.send(fx.owner.id, { email: adam.email, lock_id: fx.lockId, type: 'admin' });
    const key = fx.service.send(fx.owner.id, { email: alex.email, lock_id: fx.lockId, type: 'anytime' });
    expect(fx.service.update(adam.id, key.id, { type: 'admin' }).type).toBe('admin');
    expect(serviceError(() => fx.service.update(adam.id, key.id, { type: 'owner' })).code).toBe('type_above_own');
    const ownerKey = fx.ekeys.findLive(fx.owner.id, fx.lockId);
    expect(serviceError(() => fx.service.update(adam.id, ownerKey?.id ?? '', { name: 'x' })).code).toBe('owner_key_protected');
  });

  it("refuses to turn the lock's last owner key into another type (409)", () => {
    const ownerKey = fx.ekeys.findLive(fx.owner.id, fx.lockId);
    const error = serviceError(() => fx.service.update(fx.owner.id, ownerKey?.id ?? '', { type: 'admin' }));
    expect([error.status, error.code]).toEqual([409, 'last_owner_key']);
  });

  it('refuses changes to a revoked key (409) and accepts a no-op without writing', () => {
    const alex = fx.addUser('Alex');
    const key = fx.service.send(fx.owner.id, { email: alex.email, lock_id: fx.lockId, type: 'anytime', name: 'A' });
    fx.service.remove(fx.owner.id, key.id);
    const before = fx.ekeys.findById(key.id);
    expect(fx.service.update(fx.owner.id, key.id, { name: 'A' }).status).toBe('revoked');
    expect(fx.ekeys.findById(key.id)).toEqual(before);
    expect(serviceError(() => fx.service.update(fx.owner.id, key.id, { name: 'B' })).code).toBe('ekey_revoked');
  });
});

describe('EKeyService.remove', () => {
  it('revokes, is idempotent, and purges on request', () => {
    const alex = fx.addUser('Alex');
    const key = fx.service.send(fx.owner.id, { email: alex.email, lock_id: fx.lockId, type: 'anytime' });
    expect(fx.service.remove(fx.owner.id, key.id).status).toBe('revoked');
    expect(fx.service.remove(fx.owner.id, key.id).status).toBe('revoked');
    expect(fx.service.remove(fx.owner.id, key.id, { purge: true }).status).toBe('revoked');
    expect(fx.ekeys.findById(key.id)).toBeUndefined();
  });

  it('allows revoking an owner key while another owner key remains', () => {
    const olga = fx.addUser('Olga');
    const second = fx.service.send(fx.owner.id, { email: olga.email, lock_id: fx.lockId, type: 'owner' });
    const first = fx.ekeys.findLive(fx.owner.id, fx.lockId);
    expect(fx.service.remove(olga.id, first?.id ?? '').status).toBe('revoked');
    expect(serviceError(() => fx.service.remove(olga.id, second.id)).code).toBe('last_owner_key');
  });
});

describe('EKeyService reads', () => {
  it('shows a key to its holder and to owners and admins only', () => {
    const alex = fx.addUser('Alex');
    const anna = fx.addUser('Anna');
    const key = fx.service.send(fx.owner.id, { email: alex.email, lock_id: fx.lockId, type: 'anytime' });
    fx.service.send(fx.owner.id, { email: anna.email, lock_id: fx.lockId, type: 'anytime' });
    expect(fx.service.get(alex.id, key.id).id).toBe(key.id);
    expect(fx.service.get(fx.owner.id, key.id).id).toBe(key.id);
    expect(serviceError(() => fx.service.get(anna.id, key.id)).status).toBe(404);
    expect(fx.service.listForLock(anna.id, fx.lockId).map((view) => view.user_id)).toEqual([anna.id]);
    expect(fx.service.listForLock(fx.owner.id, fx.lockId)).toHaveLength(3);
    expect(fx.service.canSeeUser(fx.owner.id, alex.id)).toBe(true);
    expect(fx.service.canSeeUser(anna.id, alex.id)).toBe(false);
  });
});
