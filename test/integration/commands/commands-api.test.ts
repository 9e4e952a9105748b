import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { until } from '../../support/polling.js';
import { startCommandFixture, untilOnline, type CommandFixture } from './command-fixture.js';

const ISO_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('remote commands over HTTP (demo household, simulated Front Door)', () => {
  let fx: CommandFixture;

  beforeAll(async () => {
    fx = await startCommandFixture();
    await untilOnline(fx, fx.frontDoor);
  });

  afterAll(async () => {
    await fx.test.close();
  });

  describe('POST /locks/{lock_id}/commands', () => {
    it('answers 201 processing, then the lock confirms and the command completes', async () => {
      const created = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'unlock' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ lock_id: fx.frontDoor, type: 'unlock', status: 'processing', requested_by: fx.owner.id });
      expect(created.body.created_at).toMatch(ISO_MS_Z);
      expect(created.body.completed_at).toBeNull();
      expect(created.body.failure_reason).toBeNull();

      const done = await fx.untilFinished(fx.owner.token, fx.frontDoor, String(created.body.id));
      expect(done).toMatchObject({ id: created.body.id, status: 'completed', failure_reason: null });
      expect(done.completed_at).toMatch(ISO_MS_Z);
      expect(await fx.ownerLock(fx.frontDoor)).toMatchObject({ bolt_state: 'unlocked', online_status: 'online' });
      const simulated = fx.test.service.demoSimulation?.locks.get(fx.frontDoor);
      expect(simulated instanceof SimulatedLock ? simulated.bolt : 'not our profile').toBe('unlocked');
    });

    it('runs two commands sent back to back one after the other, in order', async () => {
      const first = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'lock' });
      const second = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'unlock' });
      expect([first.status, second.status]).toEqual([201, 201]);
      // Whether the second is still queued depends on timing here; test/unit/commands pins it down.
      expect(['created', 'processing']).toContain(second.body.status);
      const firstDone = await fx.untilFinished(fx.owner.token, fx.frontDoor, String(first.body.id));
      const secondDone = await fx.untilFinished(fx.owner.token, fx.frontDoor, String(second.body.id));
      expect([firstDone.status, secondDone.status]).toEqual(['completed', 'completed']);
      expect(Date.parse(String(secondDone.completed_at))).toBeGreaterThanOrEqual(Date.parse(String(firstDone.completed_at)));
      expect((await fx.ownerLock(fx.frontDoor))?.bolt_state).toBe('unlocked');
    });

    it('refuses a lock without a gateway connection with 400 lock_unreachable', async () => {
      const answer = await fx.call(fx.owner.token, 'POST', `/locks/${fx.gardenGate}/commands`, { type: 'unlock' });
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('lock_unreachable');
    });

    it('answers 404 to a user without a key, and for an unknown lock', async () => {
      const stranger = fx.others[0];
      if (!stranger) throw new Error('no stranger');
      const answer = await fx.call(stranger.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'unlock' });
      expect(answer.status).toBe(404);
      const unknown = await fx.call(fx.owner.token, 'POST', '/locks/00000000-0000-4000-8000-000000000000/commands', { type: 'unlock' });
      expect(unknown.status).toBe(404);
    });

    it('answers 403 to a holder whose key is not usable now (pending, or expired)', async () => {
      const [pendingHolder, expiredHolder] = fx.others;
      if (!pendingHolder || !expiredHolder) throw new Error('users missing');
      fx.grantKey(pendingHolder.id, fx.frontDoor, { status: 'pending' });
      const now = fx.test.clock.now();
      fx.grantKey(expiredHolder.id, fx.frontDoor, { type: 'guest', validFrom: now - 48 * 3600_000, validTo: now - 24 * 3600_000 });
      for (const holder of [pendingHolder, expiredHolder]) {
        const answer = await fx.call(holder.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'lock' });
        expect(answer.status).toBe(403);
        expect(answer.body.code).toBe('ekey_not_usable');
      }
    });

    it('rejects a body without a valid type with 400', async () => {
      for (const body of [{}, { type: 'open' }, { type: 'lock', extra: 1 }]) {
        const answer = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, body);
        expect(answer.status).toBe(400);
      }
    });

    it('replays the original command for a repeated Idempotency-Key, and refuses the key for another request', async () => {
      const headers = { 'idempotency-key': 'retry-me-1' };
      const first = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'lock' }, headers);
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      await fx.untilFinished(fx.owner.token, fx.frontDoor, String(first.body.id));
      const retry = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'lock' }, headers);
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toMatchObject({ id: first.body.id, status: 'completed' });
      const misuse = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'unlock' }, headers);
      expect(misuse.status).toBe(422);
      expect(misuse.body.code).toBe('idempotency_key_reused');
    });
  });

  describe('GET /locks/{lock_id}/commands/{command_id}', () => {
    it("shows a guest's command to the guest and the owner, and hides it from everyone else", async () => {
      const [guest, other] = fx.others.slice(2).concat(fx.others.slice(0, 1));
      if (!guest || !other) throw new Error('users missing');
      fx.grantKey(guest.id, fx.frontDoor, { type: 'anytime' });
      const created = await fx.call(guest.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'unlock' });
      expect(created.status).toBe(201);
      const id = String(created.body.id);
      await fx.untilFinished(guest.token, fx.frontDoor, id);
      expect((await fx.call(fx.owner.token, 'GET', `/locks/${fx.frontDoor}/commands/${id}`)).status).toBe(200);
      expect((await fx.call(other.token, 'GET', `/locks/${fx.frontDoor}/commands/${id}`)).status).toBe(404);
      // The right command under the wrong lock does not exist.
      expect((await fx.call(fx.owner.token, 'GET', `/locks/${fx.gardenGate}/commands/${id}`)).status).toBe(404);
      // Upper-case ids match.
      expect((await fx.call(guest.token, 'GET', `/locks/${fx.frontDoor.toUpperCase()}/commands/${id.toUpperCase()}`)).status).toBe(200);
    });

    it('ignores a body with a type on GET', async () => {
      const created = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'lock' });
      const id = String(created.body.id);
      await fx.untilFinished(fx.owner.token, fx.frontDoor, id);
      // fetch() refuses a GET body; inject sends one, as some clients do.
      const answer = await fx.test.service.http?.inject({
        method: 'GET',
        url: `/locks/${fx.frontDoor}/commands/${id}`,
        headers: { accept: 'application/json', authorization: `Bearer ${fx.owner.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ type: 'unlock' }),
      });
      expect(answer?.statusCode).toBe(200);
      expect(answer?.json()).toMatchObject({ id, type: 'lock' });
    });
  });

  describe('taps (demo control)', () => {
    it('the lock refuses a tap by a revoked key or one of another lock; a usable key opens it', async () => {
      expect(await fx.control({ op: 'manual', lock_id: fx.frontDoor, bolt: 'locked' })).toEqual({ ok: true });
      const revoked = fx.grantKey(fx.owner.id, fx.frontDoor, { status: 'revoked' });
      const otherLock = fx.grantKey(fx.owner.id, fx.gardenGate, { status: 'revoked' });
      for (const ekeyId of [revoked, otherLock]) {
        const answer = await fx.control({ op: 'tap', lock_id: fx.frontDoor, ekey_id: ekeyId, action: 'unlock' });
        expect(answer.ok).toBe(false);
      }
      expect((await fx.ownerLock(fx.frontDoor))?.bolt_state).toBe('locked');
      const usable = String((await fx.ownerLock(fx.frontDoor))?.ekey_id);
      expect(await fx.control({ op: 'tap', lock_id: fx.frontDoor, ekey_id: usable, action: 'unlock' })).toEqual({ ok: true });
      expect((await fx.ownerLock(fx.frontDoor))?.bolt_state).toBe('unlocked');
    });
  });

  describe('faults of the lock', () => {
    it('ends failed/jammed when the bolt jams, shows bolt_state jammed until a manual turn', async () => {
      expect(await fx.control({ op: 'manual', lock_id: fx.frontDoor, bolt: 'unlocked' })).toEqual({ ok: true });
      expect(await fx.control({ op: 'jam', lock_id: fx.frontDoor })).toEqual({ ok: true });
      const created = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'lock' });
      const done = await fx.untilFinished(fx.owner.token, fx.frontDoor, String(created.body.id));
      expect(done).toMatchObject({ status: 'failed', failure_reason: 'jammed' });
      expect(done.completed_at).toMatch(ISO_MS_Z);
      expect((await fx.ownerLock(fx.frontDoor))?.bolt_state).toBe('jammed');

      const again = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'lock' });
      expect(await fx.untilFinished(fx.owner.token, fx.frontDoor, String(again.body.id))).toMatchObject({ failure_reason: 'jammed' });

      expect(await fx.control({ op: 'manual', lock_id: fx.frontDoor, bolt: 'locked' })).toEqual({ ok: true });
      expect((await fx.ownerLock(fx.frontDoor))?.bolt_state).toBe('locked');
    });

    it('answers 400 lock_unreachable while the lock is offline, and works again once it is back', async () => {
      const answer = fx.control({ op: 'offline', lock_id: fx.frontDoor });
      // Offline shows after offline_after_s without a sign of life: let the service's clock run until it does.
      const runtime = fx.test.service.lockSubsystem.runtime;
      await until(
        () => {
          fx.test.clock.advance(500);
          return !runtime.isReachable(fx.frontDoor);
        },
        'the lock to go offline',
        10_000,
        0,
      );
      expect(await answer).toEqual({ ok: true });
      expect((await fx.ownerLock(fx.frontDoor))?.online_status).toBe('offline');
      const refused = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'unlock' });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('lock_unreachable');

      expect(await fx.control({ op: 'online', lock_id: fx.frontDoor })).toEqual({ ok: true });
      expect((await fx.ownerLock(fx.frontDoor))?.online_status).toBe('online');
      const accepted = await fx.call(fx.owner.token, 'POST', `/locks/${fx.frontDoor}/commands`, { type: 'unlock' });
      expect(accepted.status).toBe(201);
      expect(await fx.untilFinished(fx.owner.token, fx.frontDoor, String(accepted.body.id))).toMatchObject({ status: 'completed' });
    });
  });
});
