import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../../src/service-root.js';
import { openDatabase } from '../../../src/store/database.js';
import { builtCli, spawnNode, type RunningChild } from '../../support/child-process.js';
import { signInDemoUser, type DemoLine } from '../../support/demo-process.js';

/*
 * An acknowledged write survives the process dying at any moment (docs/design.md §2 store; database.ts:
 * WAL + synchronous=FULL). The child is the real service (`ekey-locks demo`); the test sends
 * eKeys through the API from several connections at once, SIGKILLs the child while requests are
 * still in flight, reopens the database and looks for every eKey whose 201 it received.
 *
 * SIGKILL leaves the OS page cache intact, so this proves that the service answers only after
 * its transaction has committed (nothing is buffered in the process). That the commit is also
 * fsynced — for power loss — is synchronous=FULL, asserted in test/unit/store/database.test.ts.
 */

let dataDir: string;
let child: RunningChild;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ekey-crash-'));
});

afterAll(async () => {
  child.kill();
  await child.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a service killed with SIGKILL mid-stream', () => {
  it('keeps every write it acknowledged', async () => {
    child = spawnNode(builtCli(), ['demo', '--data', dataDir]);
    const demo = JSON.parse(await child.nextLine()) as DemoLine;
    const lock = demo.locks[0];
    if (!lock) throw new Error('demo line incomplete');
    const { access_token: token } = await signInDemoUser(demo.base_url, demo);

    const acknowledged: { id: string; email: string }[] = [];
    let refused = 0;
    let failedInFlight = 0;
    let stop = false;
    const KILL_AFTER = 60;

    // Each sender sends eKeys to new addresses: every 201 is one committed invited user + pending eKey.
    const sender = async (lane: number): Promise<void> => {
      for (let n = 0; !stop; n++) {
        const email = `crash-${lane}-${n}@example.com`;
        try {
          const response = await fetch(`${demo.base_url}/ekey`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ email, lock_id: lock.id, type: 'anytime' }),
          });
          if (response.status === 201) {
            acknowledged.push({ id: ((await response.json()) as { id: string }).id, email });
          } else {
            refused++;
          }
        } catch {
          // The connection died with the process: not acknowledged, so no promise was made.
          failedInFlight++;
          return;
        }
        if (acknowledged.length >= KILL_AFTER) {
          stop = true;
          child.kill('SIGKILL');
        }
      }
    };
    await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((lane) => sender(lane)));
    expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(refused).toBe(0);
    // The kill really landed mid-stream: requests were cut off unanswered.
    expect(failedInFlight).toBeGreaterThanOrEqual(1);
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);

    const db = openDatabase(join(dataDir, DATABASE_FILE));
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const stored = db.prepare<[string], { id: string; email: string; status: string }>(
        'SELECT ekeys.id, users.email, ekeys.status FROM ekeys JOIN users ON users.id = ekeys.user_id WHERE ekeys.id = ?',
      );
      const missing = acknowledged.filter((write) => stored.get(write.id)?.email !== write.email);
      expect(missing).toEqual([]);
      expect(acknowledged.every((write) => stored.get(write.id)?.status === 'pending')).toBe(true);
    } finally {
      db.close();
    }
  });
});
