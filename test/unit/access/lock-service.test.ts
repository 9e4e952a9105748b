import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ServiceError } from '../../../src/domain/errors.js';
import { createAccessFixture, START, type AccessFixture } from './access-fixture.js';

let fx: AccessFixture;
beforeEach(() => {
  fx = createAccessFixture();
});
afterEach(() => {
  fx.db.close();
});

describe('LockService', () => {
  it('lists the locks with usable keys, spec fields first', () => {
    const [lock] = fx.lockService.listForUser(fx.owner.id, fx.owner.id.toUpperCase());
    expect(Object.keys(lock ?? {}).slice(0, 4)).toEqual(['id', 'name', 'bolt_state', 'online_status']);
    expect(lock).toMatchObject({ id: fx.lockId, name: 'Front Door', bolt_state: 'unknown', online_status: 'offline', time_zone: 'Europe/Berlin', battery_level: null, last_seen_at: null, your_role: 'owner' });
    // A lock of a family that senses its bolt says nothing about where its state comes from (docs/design.md §4f).
    expect(lock).not.toHaveProperty('bolt_state_source');
  });

  it("answers 404 for another user's list", () => {
    const alex = fx.addUser('Alex');
    expect(() => fx.lockService.listForUser(alex.id, fx.owner.id)).toThrow(ServiceError);
  });

  it('drops a lock once the key expires, and shows it only while usable', () => {
    const gina = fx.addUser('Gina');
    fx.service.send(fx.owner.id, { email: gina.email, lock_id: fx.lockId, type: 'guest' });
    expect(fx.lockService.listForUser(gina.id, gina.id).map((lock) => lock.your_role)).toEqual(['guest']);
    expect(fx.lockService.findVisible(gina.id, fx.lockId.toUpperCase()).role).toBe('guest');
    fx.clock.advance(24 * 3_600_000);
    expect(fx.lockService.listForUser(gina.id, gina.id)).toEqual([]);
    expect(() => fx.lockService.findVisible(gina.id, fx.lockId)).toThrow('does not exist or is not visible');
  });

  it('is online when heard from within offline_after_s, until the gateway installs its own view', () => {
    const lock = fx.locks.findById(fx.lockId);
    if (!lock) throw new Error('lock missing');
    fx.locks.saveState({ ...lock, lastSeenAt: START - 60_000, batteryLevel: 0.5 });
    expect(fx.lockService.listForUser(fx.owner.id, fx.owner.id)[0]).toMatchObject({
      online_status: 'online',
      battery_level: 0.5,
      last_seen_at: new Date(START - 60_000).toISOString(),
    });
    fx.lockService.setPresence(() => 'offline');
    expect(fx.lockService.listForUser(fx.owner.id, fx.owner.id)[0]?.online_status).toBe('offline');
  });
});
