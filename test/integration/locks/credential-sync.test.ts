import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { until } from '../../support/polling.js';

/**
 * The credential allow-list end to end in one process: eKey service → change hook → lock
 * runtime → gateway → simulator transport → SimulatedLock, and back through the activity
 * read-back into the event recorder. Time is a ManualClock; the re-evaluation is called directly.
 */
describe('credential allow-list: the lock refuses keys that are not usable now', () => {
  let t: TestService;
  let lockId: string;
  let ownerId: string;
  let lock: SimulatedLock;
  let guestKey: string;

  const settled = (): Promise<void> => t.service.lockSubsystem.runtime.gateway.credentialsSettled(lockId);
  const allowed = (): ReadonlyMap<string, number> => lock.allowedCredentials;
  const connected = (): boolean => t.service.lockSubsystem.runtime.gateway.getSnapshot(lockId)?.connected === true;
  const tapEvents = (ekeyId: string): { lock_sequence: number; flagged: number }[] =>
    t.service.db
      .prepare<[string, string], { lock_sequence: number; flagged: number }>('SELECT lock_sequence, flagged FROM lock_events WHERE lock_id = ? AND ekey_id = ? ORDER BY lock_sequence')
      .all(lockId, ekeyId);

  beforeEach(async () => {
    t = await startTestService();
    const front = t.demo.locks.find((candidate) => candidate.gateway);
    if (front === undefined) throw new Error('no gateway lock in the demo');
    lockId = front.id;
    ownerId = front.owner_id;
    const simulated = t.service.demoSimulation?.locks.get(lockId);
    if (!(simulated instanceof SimulatedLock)) throw new Error('no simulated lock of our profile');
    lock = simulated;
    const guest = t.demo.users.find((user) => user.id !== ownerId);
    if (guest === undefined) throw new Error('no second demo user');
    await settled();
    guestKey = t.service.services.ekeys.send(ownerId, { email: guest.email, lock_id: lockId, type: 'anytime' }).id;
    await settled();
  });

  afterEach(async () => {
    await t.close();
  });

  it('a new key is on the list at once; a revoked one is gone before the next tap, which the lock refuses', async () => {
    expect(lock.checksCredentials).toBe(true);
    expect(allowed().has(guestKey)).toBe(true);
    expect(lock.tap(guestKey, 'unlock')).toBe('accepted');
    await lock.idle();
    expect(lock.bolt).toBe('unlocked');

    t.service.services.ekeys.remove(ownerId, guestKey);
    // The change hook queued the revoke write; the demo control waits for exactly this.
    await settled();
    expect(allowed().has(guestKey)).toBe(false);
    const records = lock.activity.length;
    expect(lock.tap(guestKey, 'lock')).toBe('refused');
    expect(lock.tap(randomUUID(), 'lock')).toBe('refused');
    expect(lock.bolt).toBe('unlocked');
    expect(lock.activity.length).toBe(records);

    // Through the demo control: refused, nothing moves.
    const answer = JSON.parse(await (t.service.demoControl?.handleLine(JSON.stringify({ op: 'tap', lock_id: lockId, ekey_id: guestKey, action: 'lock' })) ?? Promise.resolve('{}'))) as {
      ok: boolean;
    };
    expect(answer.ok).toBe(false);
    expect(lock.bolt).toBe('unlocked');
  });

  it('a schedule window closes on time: the lock drops the key by its own clock and the re-evaluation revokes it', async () => {
    const zone = t.service.repositories.locks.findById(lockId)?.timeZone ?? 'UTC';
    const local = DateTime.fromMillis(t.clock.now(), { zone });
    const hour = local.hour;
    t.service.services.ekeys.update(ownerId, guestKey, { type: 'scheduled', schedule_start: `0 ${hour} * * * *`, schedule_end: `0 ${(hour + 1) % 24} * * * *` });
    await settled();
    const windowEnd = local.startOf('hour').plus({ hours: 1 }).toMillis();
    expect(allowed().get(guestKey)).toBe(windowEnd);
    expect(lock.tap(guestKey, 'unlock')).toBe('accepted');
    await lock.idle();

    t.clock.set(windowEnd - 1);
    expect(lock.acceptsCredential(guestKey)).toBe(true);
    t.clock.set(windowEnd);
    // The lock's own clock: refused even before the service re-evaluated.
    expect(lock.tap(guestKey, 'lock')).toBe('refused');
    await t.service.lockSubsystem.credentialSync?.reevaluate();
    expect(allowed().has(guestKey)).toBe(false);
    expect(lock.tap(guestKey, 'lock')).toBe('refused');
    expect(lock.bolt).toBe('unlocked');

    // The next day the window opens again at its start: the re-evaluation puts it back.
    t.clock.set(local.startOf('hour').plus({ days: 1, minutes: 5 }).toMillis());
    await t.service.lockSubsystem.credentialSync?.reevaluate();
    expect(allowed().has(guestKey)).toBe(true);
    expect(lock.tap(guestKey, 'lock')).toBe('accepted');
    await lock.idle();
  });

  it('a key revoked while the lock is out of range still opens it until the next sync; the tap is read back once and flagged', async () => {
    lock.goOutOfRange();
    await until(() => !connected(), 'the link to drop');
    t.service.services.ekeys.remove(ownerId, guestKey);
    await settled();
    // The lock kept its last list.
    expect(allowed().has(guestKey)).toBe(true);
    t.clock.advance(1_000);
    expect(lock.tap(guestKey, 'unlock')).toBe('accepted');
    await lock.idle();
    const sequence = lock.activity.at(-1)?.sequence;
    expect(tapEvents(guestKey)).toEqual([]);

    lock.comeBackInRange();
    await until(connected, 'the reconnect');
    await settled();
    // Full resync on reconnect: the revoked key is gone; the backlog brought the tap in, flagged.
    expect(allowed().has(guestKey)).toBe(false);
    expect(lock.tap(guestKey, 'lock')).toBe('refused');
    await until(() => tapEvents(guestKey).length > 0, 'the read-back event');
    expect(tapEvents(guestKey)).toEqual([{ lock_sequence: sequence, flagged: 1 }]);
    expect(t.logger.lines.some((line) => line.level === 'warn' && line.message.includes(`eKey ${guestKey} not usable then`))).toBe(true);
  });
});
