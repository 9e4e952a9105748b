import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startCommandFixture, untilOnline } from './command-fixture.js';

describe('commands across a restart of the service', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ekey-commands-restart-'));

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps finished commands, and ends those left unfinished as failed/interrupted', async () => {
    const before = await startCommandFixture({ dataDir, signInOthers: false });
    await untilOnline(before, before.frontDoor);
    const done = await before.call(before.owner.token, 'POST', `/locks/${before.frontDoor}/commands`, { type: 'unlock' });
    await before.untilFinished(before.owner.token, before.frontDoor, String(done.body.id));
    // The process dies while the lock is moving: its rows stay processing/created.
    const inFlight = randomUUID();
    const queued = randomUUID();
    const insert = before.test.service.db.prepare(
      `INSERT INTO commands (id, lock_id, type, status, requested_by, created_at, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    insert.run(inFlight, before.frontDoor, 'lock', 'processing', before.owner.id, before.test.clock.now(), before.test.clock.now());
    insert.run(queued, before.frontDoor, 'unlock', 'created', before.owner.id, before.test.clock.now(), null);
    await before.test.service.close();

    const after = await startCommandFixture({ dataDir, signInOthers: false });
    try {
      const kept = await after.call(after.owner.token, 'GET', `/locks/${after.frontDoor}/commands/${String(done.body.id)}`);
      expect(kept.body).toMatchObject({ status: 'completed', type: 'unlock' });
      for (const id of [inFlight, queued]) {
        const answer = await after.call(after.owner.token, 'GET', `/locks/${after.frontDoor}/commands/${id}`);
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ status: 'failed', failure_reason: 'interrupted' });
        expect(answer.body.completed_at).toMatch(/Z$/);
      }
      // The demo lock continues where the store left it.
      await untilOnline(after, after.frontDoor);
      expect((await after.ownerLock(after.frontDoor))?.bolt_state).toBe('unlocked');
    } finally {
      await after.test.close();
    }
  });
});
