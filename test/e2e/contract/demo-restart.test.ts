/**
 * Black-box: `ekey-locks demo --data DIR` restarted on the same folder keeps its household and
 * everything created through the API, prints the same ids and passwords, and stops on SIGTERM.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, startDemo, type DemoProcess } from '../../support/demo-process.js';
import { untilCommandFinished } from '../../support/polling.js';

let dataDir: string;
const running: DemoProcess[] = [];

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ekey-contract-restart-'));
});

afterAll(async () => {
  for (const demo of running) if (demo.child.process.exitCode === null && demo.child.process.signalCode === null) await demo.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('demo restart on the same --data', () => {
  it('keeps data, prints the same ids and passwords, and exits 0 on SIGTERM each time', async () => {
    const first = await startDemo({ dataDir });
    running.push(first);
    const token = (await first.login(0)).access_token;
    const lockId = first.demo.locks.find((lock) => lock.gateway)?.id ?? '';
    const sent = await call(first.demo.base_url, 'POST', '/ekey', {
      token,
      body: { email: first.demo.users[2]?.email, lock_id: lockId, type: 'scheduled', schedule_start: '0 7 * * * *', schedule_end: '0 19 * * * *', name: 'Blake' },
    });
    expect(sent.status).toBe(201);
    expect((await first.control({ op: 'battery', lock_id: lockId, level: 0.5 })).ok).toBe(true);
    const command = await call(first.demo.base_url, 'POST', `/locks/${lockId}/commands`, { token, body: { type: 'unlock' } });
    expect(command.status).toBe(201);
    const done = await untilCommandFinished(async () => (await call(first.demo.base_url, 'GET', `/locks/${lockId}/commands/${String(command.json.id)}`, { token })).json, { everyMs: 50 });
    expect(done.status).toBe('completed');
    expect(await first.stop()).toEqual({ code: 0, signal: null });

    const second = await startDemo({ dataDir });
    running.push(second);
    expect({ ...second.demo, base_url: '' }).toEqual({ ...first.demo, base_url: '' });
    const base = second.demo.base_url;
    // The old access token and the printed password both still work.
    expect((await call(base, 'GET', '/me', { token })).status).toBe(200);
    const fresh = (await second.login(2)).access_token;
    const key = await call(base, 'GET', `/ekey/${String(sent.json.id)}`, { token: fresh });
    expect(key.status).toBe(200);
    expect(key.json).toEqual(sent.json);
    const again = await call(base, 'GET', `/locks/${lockId}/commands/${String(command.json.id)}`, { token });
    expect(again.json).toMatchObject({ id: command.json.id, status: 'completed' });
    const events = await call(base, 'GET', `/locks/${lockId}/events?type=battery`, { token });
    expect((events.json.lock_events as Record<string, unknown>[]).map((event) => event.value)).toContain(0.5);
    // Bolt state is the one the lock reported before the restart, not a re-seed.
    const locks = await call(base, 'GET', `/users/${second.demo.users[0]?.id ?? ''}/locks`, { token });
    expect((locks.json.locks as Record<string, unknown>[]).find((lock) => lock.id === lockId)?.bolt_state).toBe('unlocked');
    expect(await second.stop()).toEqual({ code: 0, signal: null });
  }, 50_000);
});
