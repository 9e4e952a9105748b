import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { cliTestBed } from '../../support/child-process.js';
import type { DemoLine } from '../../support/demo-process.js';
import { FakeEsphomeProxy } from '../../support/fake-esphome-proxy/fake-esphome-proxy.js';
import { ManualClock } from '../../support/manual-clock.js';
import { loginOverHttp } from '../../support/oauth-login.js';
import { readUntil, untilCommandFinished } from '../../support/polling.js';

/**
 * `ekey-locks demo --config FILE` (docs/design.md §6, §4e): the demo household joined by a
 * Bluetooth proxy and one more lock from the file, the lock reached through the proxy (a fake one
 * here, speaking the native API with Noise over loopback TCP, as a real ESP32 would). The demo's
 * first line stays the household's.
 */

const bed = cliTestBed('ekey-cli-demo-proxy-');
const KEY = randomBytes(32).toString('base64');
const LOCK_KEY = 'd4'.repeat(32);
const ADDRESS = 'D2:0D:00:00:00:01';

type Body = Record<string, unknown>;

describe('ekey-locks demo --config with bluetooth.proxies and an extra lock', () => {
  let proxy: FakeEsphomeProxy;
  const lock = new SimulatedLock({ address: ADDRESS, key: Buffer.from(LOCK_KEY, 'hex'), name: 'Shed', clock: new ManualClock() });

  beforeAll(async () => {
    proxy = await FakeEsphomeProxy.start({ name: 'hall-proxy', encryptionKey: KEY });
    proxy.addDevice(lock, { rssi: -77 });
  });

  afterAll(async () => {
    await proxy.stop();
  });

  it('keeps its first line, and drives the file\'s lock through the proxy', async () => {
    const file = join(bed.dataDir, 'demo-config.json');
    writeFileSync(
      file,
      JSON.stringify({
        platform: 'EKeyLocks',
        locks: [{ name: 'Shed', address: ADDRESS, key: LOCK_KEY, owner_email: 'olivia@example.com' }],
        bluetooth: { proxies: [{ name: 'Hall', host: '127.0.0.1', port: proxy.port, encryption_key: KEY }] },
      }),
    );
    const child = bed.spawn(['demo', '--config', file, '--port', '0', '--data', join(bed.dataDir, 'data')]);
    const demo = JSON.parse(await child.nextLine()) as DemoLine;
    expect(Object.keys(demo)).toEqual(['base_url', 'clients', 'users', 'locks']);
    expect(demo.locks.map((entry) => entry.name)).toEqual(['Front Door', 'Garden Gate', 'Back Door', 'Building Door', 'Side Door']);
    const owner = demo.users[0];
    const client = demo.clients[0];
    if (owner === undefined || client === undefined) throw new Error('demo line without owner or client');
    const token = (await loginOverHttp({ baseUrl: demo.base_url, client, email: owner.email, password: owner.password })).access_token;
    const get = async (path: string): Promise<Body> => (await (await fetch(`${demo.base_url}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } })).json()) as Body;

    const shed = await readUntil(
      async () => ((await get(`/users/${owner.id}/locks`)).locks as Body[]).find((entry) => entry.name === 'Shed'),
      (entry) => entry?.online_status === 'online' && (entry.gateway as Body | null)?.id === 'Hall',
      { timeoutMs: 15_000, everyMs: 100 },
    );
    expect(shed?.gateway).toMatchObject({ id: 'Hall', name: 'Hall', rssi: -77 });
    const shedId = String(shed?.id);
    const created = await fetch(`${demo.base_url}/locks/${shedId}/commands`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'unlock' }),
    });
    expect(created.status).toBe(201);
    const commandId = String(((await created.json()) as Body).id);
    expect(await untilCommandFinished(() => get(`/locks/${shedId}/commands/${commandId}`))).toMatchObject({ status: 'completed' });
    expect(lock.bolt).toBe('unlocked');

    const gateways = (await get('/gateways')).gateways as Body[];
    expect(gateways.map((gateway) => [gateway.id, gateway.kind, gateway.state])).toEqual([
      ['host', 'host', 'online'],
      ['Hall', 'esphome', 'online'],
    ]);
    expect(child.stderr()).not.toContain(KEY);
  });
});
