import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { CommandEngine } from '../../../src/commands/command-engine.js';
import { until } from '../../support/polling.js';
import { completed, createWorld, failedWith, thrown, type World } from './command-world.js';

describe('CommandEngine', () => {
  let w: World;

  beforeEach(() => {
    w = createWorld();
  });

  afterEach(() => {
    w.engine.stop();
    w.db.close();
  });

  /**
   * Runs one command on the second lock from submit to its end (the gateway answers it at once,
   * jammed, so it records no event): a later outcome of the engine's own, by which the engine has
   * acted on everything that happened before it.
   */
  async function otherLockCommandEnded(engine: CommandEngine = w.engine): Promise<void> {
    w.gateway.reachable.add(w.noGatewayLock);
    w.db.prepare('UPDATE locks SET has_gateway = 1 WHERE id = ?').run(w.noGatewayLock);
    const { command } = engine.submit({ userId: w.owner, lockId: w.noGatewayLock, type: 'lock' });
    const index = w.gateway.calls.findIndex((call) => call.lockId === w.noGatewayLock);
    const [call] = w.gateway.calls.splice(index, 1);
    if (index < 0 || call === undefined) throw new Error('the other lock’s command never reached the gateway');
    call.answer(failedWith('jammed'));
    expect(await engine.whenFinished(command.id)).toMatchObject({ status: 'failed', failureReason: 'jammed' });
  }

  describe('lifecycle', () => {
    it('hands a command for an idle lock to the gateway at once: processing, with the configured timeout', () => {
      const { command, replayed } = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' });
      expect(replayed).toBe(false);
      expect(command).toMatchObject({ lockId: w.lock, type: 'unlock', status: 'processing', requestedBy: w.owner, completedAt: null, failureReason: null });
      expect(w.gateway.calls).toEqual([expect.objectContaining({ lockId: w.lock, action: 'unlock', timeoutMs: 15_000 })]);
      expect(w.commands.findById(command.id)?.status).toBe('processing');
    });

    it('completes only when the gateway confirms, and reports it with the requester as performer', async () => {
      const { command } = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' });
      await otherLockCommandEnded();
      expect(w.commands.findById(command.id)?.status).toBe('processing');
      w.clock.advance(1234);
      w.gateway.answerNext(completed('unlocked'));
      const done = await w.engine.whenFinished(command.id);
      expect(done).toMatchObject({ status: 'completed', failureReason: null, completedAt: w.clock.now() });
      expect(w.commands.findById(command.id)).toMatchObject({ status: 'completed', completedAt: w.clock.now() });
      expect(w.recorded).toEqual([{ commandId: command.id, performerId: w.owner, action: 'unlock' }]);
    });

    it.each(['jammed', 'timeout', 'delivery_failed', 'lock_offline'] as const)('ends failed/%s when the gateway says so, recording no event', async (reason) => {
      const { command } = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' });
      w.gateway.answerNext(failedWith(reason));
      expect(await w.engine.whenFinished(command.id)).toMatchObject({ status: 'failed', failureReason: reason });
      expect(w.commands.findById(command.id)).toMatchObject({ status: 'failed', failureReason: reason, completedAt: w.clock.now() });
      expect(w.recorded).toEqual([]);
    });

    it('gives up on a gateway that never answers: failed/timeout, and the next command runs', async () => {
      const engine = w.newEngine({ timeoutMs: 20, guardGraceMs: 0 });
      const first = engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' }).command;
      const second = engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' }).command;
      expect(await engine.whenFinished(first.id)).toMatchObject({ status: 'failed', failureReason: 'timeout' });
      await until(() => w.commands.findById(second.id)?.status === 'processing', 'the second command to start');
      expect(w.commands.findById(second.id)?.status).toBe('processing');
      engine.stop();
    });
  });

  describe('one command at a time per lock, in order', () => {
    it('queues later commands as created and starts each only after the previous one ended', async () => {
      const first = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' }).command;
      const second = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' }).command;
      const third = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' }).command;
      expect([first.status, second.status, third.status]).toEqual(['processing', 'created', 'created']);
      expect(w.gateway.calls.map((call) => call.action)).toEqual(['lock']);

      w.gateway.answerNext(completed('locked'));
      await w.engine.whenFinished(first.id);
      // The next command starts in the same step that ends one; only one at a time.
      await until(() => w.commands.findById(second.id)?.status === 'processing', 'the second command to start');
      expect(w.commands.findById(second.id)?.status).toBe('processing');
      expect(w.commands.findById(third.id)?.status).toBe('created');
      expect(w.gateway.calls.map((call) => call.action)).toEqual(['unlock']);

      w.gateway.answerNext(failedWith('jammed'));
      await w.engine.whenFinished(second.id);
      await until(() => w.commands.findById(third.id)?.status === 'processing', 'the third command to start');
      expect(w.gateway.calls.map((call) => call.action)).toEqual(['lock']);
      w.gateway.answerNext(completed('locked'));
      expect(await w.engine.whenFinished(third.id)).toMatchObject({ status: 'completed' });
      await w.engine.idle();
      expect(w.engine.pendingCount(w.lock)).toBe(0);
    });

    it('runs commands of different locks independently', () => {
      w.gateway.reachable.add(w.noGatewayLock);
      w.db.prepare('UPDATE locks SET has_gateway = 1 WHERE id = ?').run(w.noGatewayLock);
      expect(w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' }).command.status).toBe('processing');
      expect(w.engine.submit({ userId: w.owner, lockId: w.noGatewayLock, type: 'lock' }).command.status).toBe('processing');
      expect(w.gateway.calls.map((call) => call.lockId)).toEqual([w.lock, w.noGatewayLock]);
    });

    it('fails a queued command lock_offline when its lock is out of reach at its turn', async () => {
      const first = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' }).command;
      const second = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' }).command;
      w.gateway.reachable.delete(w.lock);
      w.gateway.answerNext(failedWith('delivery_failed'));
      await w.engine.whenFinished(first.id);
      expect(await w.engine.whenFinished(second.id)).toMatchObject({ status: 'failed', failureReason: 'lock_offline' });
      expect(w.gateway.calls).toEqual([]);
    });

    it('refuses the ninth unfinished command on a lock with 429 and a Retry-After', () => {
      for (let i = 0; i < 8; i += 1) w.engine.submit({ userId: w.owner, lockId: w.lock, type: i % 2 === 0 ? 'lock' : 'unlock' });
      const error = thrown(() => w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' }));
      expect(error.status).toBe(429);
      expect(error.code).toBe('command_queue_full');
      expect(error).toMatchObject({ refusal: 'queue_full' });
      expect(Number(error.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(error.headers?.['retry-after'])).toBeLessThanOrEqual(15);
      expect(w.engine.pendingCount(w.lock)).toBe(8);
    });

    it('accepts commands again once the queue has room', async () => {
      const engine = w.newEngine({ queueLimit: 2 });
      const first = engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' }).command;
      engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' });
      expect(thrown(() => engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' })).status).toBe(429);
      w.gateway.answerNext(completed('locked'));
      await engine.whenFinished(first.id);
      expect(engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' }).command.status).toBe('created');
      engine.stop();
    });

    it('lets a HomeKit request supersede that user’s queued HomeKit commands, never API ones', async () => {
      const running = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock', origin: 'homekit' }).command;
      const api = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' }).command;
      const oldTarget = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock', origin: 'homekit', supersedeQueued: true }).command;
      const newTarget = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock', origin: 'homekit', supersedeQueued: true }).command;
      expect(await w.engine.whenFinished(oldTarget.id)).toMatchObject({ status: 'failed', failureReason: 'superseded' });
      expect(w.commands.findById(running.id)?.status).toBe('processing');
      expect(w.commands.findById(api.id)?.status).toBe('created');
      expect(w.commands.findById(newTarget.id)?.status).toBe('created');
    });
  });

  describe('persistence and restarts', () => {
    it('marks commands left created or processing by a previous run failed/interrupted', () => {
      const processing = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' }).command;
      const queued = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' }).command;
      // A new process: a new engine over the same store; the old one is gone without stopping.
      w.clock.advance(60_000);
      const restarted = w.newEngine();
      expect(restarted.recoverInterrupted()).toBe(2);
      for (const id of [processing.id, queued.id]) {
        expect(w.commands.findById(id)).toMatchObject({ status: 'failed', failureReason: 'interrupted', completedAt: w.clock.now() });
      }
      expect(restarted.recoverInterrupted()).toBe(0);
    });

    it('on stop, ends running and queued commands failed/interrupted; a late answer changes nothing', async () => {
      const running = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' }).command;
      const queued = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' }).command;
      w.engine.stop();
      expect(w.commands.findById(running.id)).toMatchObject({ status: 'failed', failureReason: 'interrupted' });
      expect(w.commands.findById(queued.id)).toMatchObject({ status: 'failed', failureReason: 'interrupted' });
      w.gateway.answerNext(completed('locked'));
      // A command of a new engine over the same store and gateway, sent and answered after the late
      // answer, has ended: the stopped engine has had that answer by then.
      const next = w.newEngine();
      const later = next.submit({ userId: w.owner, lockId: w.lock, type: 'unlock' }).command;
      w.gateway.answerNext(failedWith('jammed'));
      expect(await next.whenFinished(later.id)).toMatchObject({ status: 'failed', failureReason: 'jammed' });
      next.stop();
      expect(w.commands.findById(running.id)?.status).toBe('failed');
      expect(w.recorded).toEqual([]);
      expect(thrown(() => w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' })).status).toBe(503);
    });
  });

  describe('Idempotency-Key', () => {
    it('returns the original command for a repeated key, in its current state', async () => {
      const first = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock', idempotencyKey: 'k-1' });
      w.gateway.answerNext(completed('unlocked'));
      await w.engine.whenFinished(first.command.id);
      const again = w.engine.submit({ userId: w.owner, lockId: w.lock.toUpperCase(), type: 'unlock', idempotencyKey: 'k-1' });
      expect(again.replayed).toBe(true);
      expect(again.command).toMatchObject({ id: first.command.id, status: 'completed' });
      expect(w.gateway.calls).toEqual([]);
    });

    it('scopes keys to the requester', () => {
      w.grant(w.guest, w.lock);
      const mine = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock', idempotencyKey: 'same' }).command;
      const theirs = w.engine.submit({ userId: w.guest, lockId: w.lock, type: 'lock', idempotencyKey: 'same' });
      expect(theirs.replayed).toBe(false);
      expect(theirs.command.id).not.toBe(mine.id);
    });

    it('refuses a key reused for a different request with 422, and a malformed key with 400', () => {
      w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock', idempotencyKey: 'k-2' });
      expect(thrown(() => w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'unlock', idempotencyKey: 'k-2' }))).toMatchObject({
        status: 422,
        code: 'idempotency_key_reused',
      });
      expect(thrown(() => w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock', idempotencyKey: 'has space' }))).toMatchObject({
        status: 400,
        code: 'invalid_idempotency_key',
      });
    });

    it('forgets a key after 24 hours', () => {
      const first = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock', idempotencyKey: 'old' }).command;
      w.clock.advance(24 * 3600_000 + 1);
      const later = w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock', idempotencyKey: 'old' });
      expect(later.replayed).toBe(false);
      expect(later.command.id).not.toBe(first.id);
    });
  });

  describe('who may send a command (docs/design.md §3 Commands)', () => {
    it('answers 404 for an unknown lock and for a user holding no key on it', () => {
      expect(thrown(() => w.engine.submit({ userId: w.owner, lockId: randomUUID(), type: 'lock' })).status).toBe(404);
      expect(thrown(() => w.engine.submit({ userId: w.stranger, lockId: w.lock, type: 'lock' })).status).toBe(404);
    });

    it('answers 403 to a holder whose key is pending, expired, not yet valid or outside its schedule', () => {
      const now = w.clock.now();
      const cases: Parameters<World['grant']>[2][] = [
        { status: 'pending' },
        { type: 'guest', validFrom: now - 48 * 3600_000, validTo: now - 24 * 3600_000 },
        { validFrom: now + 3600_000 },
        // 12:00 UTC on a Wednesday; the window is 18:00–20:00.
        { type: 'scheduled', scheduleStart: '0 18 * * * *', scheduleEnd: '0 20 * * * *' },
      ];
      for (const fields of cases) {
        const holder = w.person('holder');
        w.grant(holder, w.lock, fields);
        expect(thrown(() => w.engine.submit({ userId: holder, lockId: w.lock, type: 'lock' }))).toMatchObject({ status: 403, code: 'ekey_not_usable', refusal: 'no_usable_key' });
      }
    });

    it('accepts a guest inside its validity window, and a revoked key counts as none (404)', () => {
      const now = w.clock.now();
      w.grant(w.guest, w.lock, { type: 'guest', validFrom: now - 3600_000, validTo: now + 3600_000 });
      expect(w.engine.submit({ userId: w.guest, lockId: w.lock, type: 'unlock' }).command.requestedBy).toBe(w.guest);
      w.db.prepare("UPDATE ekeys SET status = 'revoked' WHERE user_id = ?").run(w.guest);
      expect(thrown(() => w.engine.submit({ userId: w.guest, lockId: w.lock, type: 'unlock' }))).toMatchObject({ status: 404, refusal: 'no_usable_key' });
    });

    it('answers 400 lock_unreachable for a lock without a gateway connection or out of reach', () => {
      expect(thrown(() => w.engine.submit({ userId: w.owner, lockId: w.noGatewayLock, type: 'lock' }))).toMatchObject({ status: 400, code: 'lock_unreachable', refusal: 'lock_unreachable' });
      w.gateway.reachable.delete(w.lock);
      expect(thrown(() => w.engine.submit({ userId: w.owner, lockId: w.lock, type: 'lock' }))).toMatchObject({ status: 400, code: 'lock_unreachable', refusal: 'lock_unreachable' });
      expect(w.commands.failUnfinished('interrupted', w.clock.now())).toBe(0);
    });

    it('checks the key before reachability: a holder without a usable key learns nothing about the gateway', () => {
      w.grant(w.guest, w.noGatewayLock, { status: 'pending' });
      expect(thrown(() => w.engine.submit({ userId: w.guest, lockId: w.noGatewayLock, type: 'lock' })).status).toBe(403);
      expect(thrown(() => w.engine.submit({ userId: w.stranger, lockId: w.noGatewayLock, type: 'lock' })).status).toBe(404);
    });
  });

  describe('who may see a command', () => {
    it('shows it to its requester and to owners and admins of the lock; others get 404', () => {
      w.grant(w.guest, w.lock);
      const admin = w.person('admin');
      const otherGuest = w.person('other-guest');
      w.grant(admin, w.lock, { type: 'admin' });
      w.grant(otherGuest, w.lock, { type: 'anytime' });
      const { command } = w.engine.submit({ userId: w.guest, lockId: w.lock, type: 'unlock' });
      expect(w.engine.get(w.guest, w.lock, command.id).id).toBe(command.id);
      expect(w.engine.get(w.owner, w.lock, command.id).id).toBe(command.id);
      expect(w.engine.get(admin, w.lock, command.id).id).toBe(command.id);
      expect(thrown(() => w.engine.get(otherGuest, w.lock, command.id)).status).toBe(404);
      expect(thrown(() => w.engine.get(w.stranger, w.lock, command.id)).status).toBe(404);
      expect(thrown(() => w.engine.get(w.owner, w.noGatewayLock, command.id)).status).toBe(404);
      expect(thrown(() => w.engine.get(w.owner, w.lock, randomUUID())).status).toBe(404);
      expect(w.engine.get(w.guest, w.lock.toUpperCase(), command.id.toUpperCase()).id).toBe(command.id);
    });
  });
});
