import { describe, expect, it } from '@jest/globals';
import { cliTestBed, type RunningChild } from '../../support/child-process.js';
import type { DemoLine } from '../../support/demo-process.js';
import { loginOverHttp } from '../../support/oauth-login.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const bed = cliTestBed('ekey-cli-demo-');

async function startDemo(args: string[]): Promise<{ child: RunningChild; demo: DemoLine }> {
  const child = bed.spawn(['demo', ...args]);
  const demo = JSON.parse(await child.nextLine()) as DemoLine;
  return { child, demo };
}

/** Stops a child with SIGTERM and returns how it exited. */
async function terminate(child: RunningChild): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  child.kill('SIGTERM');
  return child.exited;
}

const getJson = async (url: string, token: string): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  return { status: response.status, body: await response.json() };
};

describe('ekey-locks demo', () => {
  let first: DemoLine;
  let token: string;
  let ekeyId: string;

  it('prints the household as one JSON line first, then serves it', async () => {
    const { child, demo } = await startDemo(['--port', '0', '--data', bed.dataDir]);
    first = demo;
    expect(Object.keys(demo)).toEqual(['base_url', 'clients', 'users', 'locks']);
    expect(demo.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(demo.base_url).not.toMatch(/:0$/);

    expect(demo.clients).toHaveLength(1);
    for (const client of demo.clients) {
      expect(Object.keys(client).sort()).toEqual(['client_id', 'client_secret', 'redirect_uri']);
      expect(client.client_id).toMatch(UUID);
      expect(client.client_secret.length).toBeGreaterThanOrEqual(32);
      expect(URL.canParse(client.redirect_uri)).toBe(true);
    }

    expect(demo.users).toHaveLength(4);
    for (const user of demo.users) {
      expect(Object.keys(user).sort()).toEqual(['email', 'id', 'name', 'password']);
      expect(user.id).toMatch(UUID);
      expect(user.email).toMatch(/^[^@\s]+@[^@\s]+$/);
      expect(user.password.length).toBeGreaterThanOrEqual(8);
    }
    expect(new Set(demo.users.map((user) => user.email.toLowerCase())).size).toBe(4);

    expect(demo.locks).toHaveLength(5);
    for (const lock of demo.locks) {
      expect(Object.keys(lock).sort()).toEqual(['family', 'gateway', 'id', 'name', 'owner_id']);
      expect(lock.id).toMatch(UUID);
      expect(lock.owner_id).toBe(demo.users[0]?.id);
    }
    expect(demo.locks.map((lock) => [lock.name, lock.gateway, lock.family])).toEqual([
      ['Front Door', true, 'ekey'],
      ['Garden Gate', false, 'ekey'],
      ['Back Door', true, 'nuki'],
      ['Building Door', true, 'nuki-opener'],
      ['Side Door', true, 'ttlock'],
    ]);

    // The printed logins work over the real authorization-code flow.
    const owner = demo.users[0];
    const client = demo.clients[0];
    if (!owner || !client) throw new Error('demo line incomplete');
    token = (await loginOverHttp({ baseUrl: demo.base_url, client, email: owner.email, password: owner.password })).access_token;
    expect(await getJson(`${demo.base_url}/me`, token)).toEqual({ status: 200, body: { id: owner.id, name: owner.name } });

    // Data created through the API, to find again after a restart.
    const response = await fetch(`${demo.base_url}/ekey`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: demo.users[1]?.email, lock_id: demo.locks[0]?.id, type: 'anytime', name: 'Alex front door' }),
    });
    expect(response.status).toBe(201);
    ekeyId = ((await response.json()) as { id: string }).id;

    // Logs went to stderr: stdout holds the demo line only.
    expect(child.stdoutLines).toHaveLength(1);
    const exit = await terminate(child);
    expect(exit).toMatchObject({ code: 0, signal: null });
  });

  it('on the same --data, prints the same household with a new base_url and keeps API data', async () => {
    const { child, demo } = await startDemo(['--data', bed.dataDir]);
    expect({ ...demo, base_url: 'x' }).toEqual({ ...first, base_url: 'x' });
    expect(demo.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    // The token issued by the first run is still valid; so is the eKey it created.
    expect((await getJson(`${demo.base_url}/me`, token)).status).toBe(200);
    const ekey = await getJson(`${demo.base_url}/ekey/${ekeyId}`, token);
    expect(ekey).toEqual({
      status: 200,
      body: expect.objectContaining({ id: ekeyId, name: 'Alex front door', type: 'anytime', user_id: first.users[1]?.id }) as unknown,
    });
    // The printed passwords still log in.
    const user = demo.users[3];
    const client = demo.clients[0];
    if (!user || !client) throw new Error('demo line incomplete');
    await expect(loginOverHttp({ baseUrl: demo.base_url, client, email: user.email, password: user.password })).resolves.toHaveProperty('access_token');
    await terminate(child);
  });

  it('stops on SIGTERM with exit code 0, even with a keep-alive connection open', async () => {
    const { child, demo } = await startDemo(['--port', '0']);
    // An open keep-alive connection must not hold the process up: the server keeps an idle one for 72 s,
    // longer than Jest lets this test run, so exiting at all shows it did not (no wall-clock bound).
    await fetch(`${demo.base_url}/openapi.json`, { headers: { connection: 'keep-alive' } });
    const exit = await terminate(child);
    expect(exit.code).toBe(0);
    expect(exit.signal).toBeNull();
    expect(child.stderr()).toContain('SIGTERM: stopping');
  });
});
