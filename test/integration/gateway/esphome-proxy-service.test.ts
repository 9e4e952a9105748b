import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { ServiceRoot } from '../../../src/service-root.js';
import { FakeEsphomeProxy } from '../../support/fake-esphome-proxy/fake-esphome-proxy.js';
import { ManualClock } from '../../support/manual-clock.js';
import { readUntil, until } from '../../support/polling.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { startCommandFixture, type CommandFixture } from '../commands/command-fixture.js';

/**
 * The whole service with its locks behind an ESPHome Bluetooth proxy (docs/design.md §4e): the
 * demo household's simulated locks of every family — our profile (Front Door), the Nuki Smart
 * Lock with its keypad (Back Door), the Nuki Opener (Building Door), TTLock with its keypad (Side Door) — reached only through a fake
 * proxy speaking the native API with Noise over loopback TCP; `GET /gateways` and each lock's
 * `gateway` as owners, admins and guests see them. Then proxies only, without D-Bus.
 */

type Body = Record<string, unknown>;
const KEY = randomBytes(32).toString('base64');
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('every lock family through an ESPHome proxy (proxies only)', () => {
  let proxy: FakeEsphomeProxy;
  let fx: CommandFixture;

  beforeAll(async () => {
    proxy = await FakeEsphomeProxy.start({ name: 'hall-proxy', encryptionKey: KEY });
    fx = await startCommandFixture({
      config: { bluetooth: { use_host_adapter: false, proxies: [{ name: 'Hall', host: '127.0.0.1', port: proxy.port, encryption_key: KEY }] } },
      beforeListen: (service) => {
        const simulation = service.demoSimulation;
        if (simulation === undefined) throw new Error('no demo simulation');
        for (const device of simulation.locks.values()) {
          const reachable = simulation.transport.getDevice(device.address);
          if (reachable !== undefined) proxy.addDevice(reachable, { rssi: -64 });
        }
      },
    });
  });

  afterAll(async () => {
    await fx.test.close();
    await proxy.stop();
  });

  const command = async (lockId: string, type: string): Promise<Body> => {
    const created = await fx.call(fx.owner.token, 'POST', `/locks/${lockId}/commands`, { type });
    expect(created.status).toBe(201);
    return fx.untilFinished(fx.owner.token, lockId, String(created.body.id));
  };

  it('reaches every lock with a gateway connection through Hall alone, and says so to the owner', async () => {
    for (const lockId of [fx.frontDoor, fx.backDoor, fx.buildingDoor, fx.sideDoor]) {
      const entry = await readUntil(() => fx.ownerLock(lockId), (lock) => lock?.online_status === 'online' && lock.gateway !== null);
      expect(entry?.gateway).toEqual({ id: 'Hall', name: 'Hall', rssi: -64, seen_at: expect.stringMatching(ISO) });
    }
    expect((await fx.ownerLock(fx.gardenGate))?.gateway).toBeNull();
    expect(proxy.log.keyFailures).toBe(0);
  });

  it('our profile: lock and unlock complete through the proxy', async () => {
    expect(await command(fx.frontDoor, 'unlock')).toMatchObject({ status: 'completed' });
    expect(await command(fx.frontDoor, 'lock')).toMatchObject({ status: 'completed' });
    expect((await fx.ownerLock(fx.frontDoor))?.bolt_state).toBe('locked');
  });

  it('the Nuki Smart Lock: unlock, unlatch and lock through the proxy, with real Nuki frames', async () => {
    expect(await command(fx.backDoor, 'unlock')).toMatchObject({ status: 'completed' });
    expect(await command(fx.backDoor, 'unlatch')).toMatchObject({ status: 'completed' });
    expect(await command(fx.backDoor, 'lock')).toMatchObject({ status: 'completed' });
    const events = (await fx.call(fx.owner.token, 'GET', `/locks/${fx.backDoor}/events`)).body.lock_events as Body[];
    expect(events.slice(0, 3).map((event) => [event.type, event.unlatched ?? false])).toEqual([
      ['lock', false],
      ['unlock', true],
      ['unlock', false],
    ]);
  });

  it('a Nuki keypad code: written onto the lock through the proxy, and the lock\'s keypad entry comes back as the holder\'s event', async () => {
    const holder = fx.test.demo.users[1];
    if (holder === undefined) throw new Error('no second demo user');
    const sent = await fx.call(fx.owner.token, 'POST', '/ekey', { email: holder.email, lock_id: fx.backDoor, type: 'anytime', door_code: true });
    expect(sent.status).toBe(201);
    const keyId = String(sent.body.id);
    const key = await readUntil(
      async () => (await fx.call(fx.owner.token, 'GET', `/ekey/${keyId}`)).body,
      (body) => (body.door_code as Body | null)?.state === 'set',
    );
    const code = String((key.door_code as Body).code);
    expect(await fx.control({ op: 'keypad_codes', lock_id: fx.backDoor })).toMatchObject({ ok: true, codes: [expect.objectContaining({ code, enabled: true })] });
    expect(await fx.control({ op: 'keypad', lock_id: fx.backDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'unlocked' });
    const newest = ((await fx.call(fx.owner.token, 'GET', `/locks/${fx.backDoor}/events?limit=1`)).body.lock_events as Body[])[0];
    expect(newest).toMatchObject({ type: 'unlock', via: 'keypad', performer: { id: holder.id } });
  });

  it('the Nuki Opener: the strike and Ring to Open through the proxy', async () => {
    expect(await command(fx.buildingDoor, 'unlock')).toMatchObject({ status: 'completed' });
    expect(await command(fx.buildingDoor, 'ring_to_open_on')).toMatchObject({ status: 'completed' });
    expect((await fx.ownerLock(fx.buildingDoor))?.opener_mode).toBe('ring_to_open');
    expect(await command(fx.buildingDoor, 'ring_to_open_off')).toMatchObject({ status: 'completed' });
    expect((await fx.ownerLock(fx.buildingDoor))?.opener_mode).toBe('none');
  });

  it('TTLock: unlock and lock through the proxy, a connection per command, with real TTLock frames', async () => {
    expect(await command(fx.sideDoor, 'unlock')).toMatchObject({ status: 'completed' });
    expect((await fx.ownerLock(fx.sideDoor))?.bolt_state).toBe('unlocked');
    expect(await command(fx.sideDoor, 'lock')).toMatchObject({ status: 'completed' });
    expect(await fx.ownerLock(fx.sideDoor)).toMatchObject({ bolt_state: 'locked', bolt_state_source: 'assumed' });
  });

  it('a TTLock keypad code: put on the lock through the proxy with its window, and the keypad entry read from the lock\'s log is the holder\'s event', async () => {
    const holder = fx.test.demo.users[2];
    if (holder === undefined) throw new Error('no third demo user');
    const sent = await fx.call(fx.owner.token, 'POST', '/ekey', { email: holder.email, lock_id: fx.sideDoor, type: 'anytime', door_code: true });
    expect(sent.status).toBe(201);
    const keyId = String(sent.body.id);
    const key = await readUntil(
      async () => (await fx.call(fx.owner.token, 'GET', `/ekey/${keyId}`)).body,
      (body) => (body.door_code as Body | null)?.state === 'set',
    );
    const code = String((key.door_code as Body).code);
    expect(await fx.control({ op: 'keypad_codes', lock_id: fx.sideDoor })).toMatchObject({ ok: true, codes: [expect.objectContaining({ code, enabled: true })] });
    expect(await fx.control({ op: 'keypad', lock_id: fx.sideDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'unlocked' });
    const newest = await readUntil(
      async () => ((await fx.call(fx.owner.token, 'GET', `/locks/${fx.sideDoor}/events?limit=1`)).body.lock_events as Body[])[0],
      (event) => event?.via === 'keypad',
    );
    expect(newest).toMatchObject({ type: 'unlock', via: 'keypad', performer: { id: holder.id } });
    // Revoked: the code comes off the lock through the proxy and no longer opens.
    expect((await fx.call(fx.owner.token, 'DELETE', `/ekey/${keyId}`)).status).toBe(200);
    await readUntil(
      async () => (await fx.call(fx.owner.token, 'GET', `/ekey/${keyId}`)).body,
      (body) => (body.door_code as Body | null)?.state === 'removed',
    );
    expect(await fx.control({ op: 'keypad', lock_id: fx.sideDoor, code, action: 'unlock' })).toMatchObject({ ok: true, result: 'refused' });
  });

  it('GET /gateways: Hall with its state, address, slots and the owner\'s locks it hears', async () => {
    const answer = await fx.call(fx.owner.token, 'GET', '/gateways');
    expect(answer.status).toBe(200);
    const gateways = answer.body.gateways as Body[];
    expect(gateways).toHaveLength(1);
    const hall = gateways[0] as Body;
    expect(hall).toMatchObject({ id: 'Hall', name: 'Hall', kind: 'esphome', state: 'online', address: `127.0.0.1:${proxy.port}`, connections_limit: 3 });
    expect(hall.connections_free).toBe(3 - proxy.usedSlots);
    const locks = hall.locks as Body[];
    expect(locks.map((lock) => lock.lock_id).sort()).toEqual([fx.frontDoor, fx.backDoor, fx.buildingDoor, fx.sideDoor].sort());
    expect(locks.find((lock) => lock.lock_id === fx.frontDoor)).toEqual({ lock_id: fx.frontDoor, rssi: -64, seen_at: expect.stringMatching(ISO), connected: true });
    expect(JSON.stringify(answer.body)).not.toContain(KEY);
  });

  it('shows none of it to anyone else: a guest gets 404 and no gateway on its lock; no token is 401', async () => {
    const guest = fx.others[1];
    if (guest === undefined) throw new Error('no guest');
    fx.grantKey(guest.id, fx.frontDoor, { type: 'anytime' });
    expect((await fx.call(guest.token, 'GET', '/gateways')).status).toBe(404);
    const locks = (await fx.call(guest.token, 'GET', `/users/${guest.id}/locks`)).body.locks as Body[];
    expect(locks.map((lock) => lock.id)).toEqual([fx.frontDoor]);
    expect(locks[0]).not.toHaveProperty('gateway');
    const anonymous = await fetch(`${fx.test.baseUrl}/gateways`, { headers: { accept: 'application/json' } });
    expect(anonymous.status).toBe(401);
  });

  it('an admin sees the gateways of the locks it administers only', async () => {
    const admin = fx.others[2];
    if (admin === undefined) throw new Error('no admin');
    fx.grantKey(admin.id, fx.backDoor, { type: 'admin' });
    const answer = await fx.call(admin.token, 'GET', '/gateways');
    expect(answer.status).toBe(200);
    const hall = (answer.body.gateways as Body[])[0] as Body;
    expect((hall.locks as Body[]).map((lock) => lock.lock_id)).toEqual([fx.backDoor]);
    const own = (await fx.call(admin.token, 'GET', `/users/${admin.id}/locks`)).body.locks as Body[];
    expect(own[0]?.gateway).toMatchObject({ id: 'Hall' });
  });
});

describe('proxies only, without D-Bus (Homebridge in a container)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('runs a configured lock through the proxy with no system bus at all, and never tries one', async () => {
    const previous = process.env.DBUS_SYSTEM_BUS_ADDRESS;
    process.env.DBUS_SYSTEM_BUS_ADDRESS = 'unix:path=/nonexistent/ekey-test/system_bus_socket';
    cleanups.push(() => {
      if (previous === undefined) delete process.env.DBUS_SYSTEM_BUS_ADDRESS;
      else process.env.DBUS_SYSTEM_BUS_ADDRESS = previous;
    });
    const key = 'c3'.repeat(32);
    const lock = new SimulatedLock({ address: 'D1:0C:00:00:00:01', key: Buffer.from(key, 'hex'), name: 'Porch', clock: new ManualClock() });
    const proxy = await FakeEsphomeProxy.start({ encryptionKey: KEY });
    cleanups.push(() => proxy.stop());
    proxy.addDevice(lock, { rssi: -71 });
    const dataDir = mkdtempSync(join(tmpdir(), 'ekey-proxies-only-'));
    cleanups.push(() => {
      rmSync(dataDir, { recursive: true, force: true });
    });
    const logger = new RecordingLogger();
    const service = await ServiceRoot.open({
      config: {
        locks: [{ name: 'Porch', address: lock.address, key, owner_email: 'owner@example.org' }],
        bluetooth: { use_host_adapter: false, proxies: [{ name: 'Hall', host: '127.0.0.1', port: proxy.port, encryption_key: KEY }] },
      },
      dataDir,
      logger,
    });
    cleanups.push(() => service.close());
    await service.listen(0, '127.0.0.1');
    const port = service.lockPort();
    const porch = port.listLocks()[0];
    if (porch === undefined) throw new Error('no lock');
    await until(() => service.lockSubsystem.runtime.isReachable(porch.id), 'the lock through the proxy');
    expect(await port.requestBolt(porch.id, 'unlocked', porch.ownerId)).toMatchObject({ status: 'completed' });
    expect(lock.bolt).toBe('unlocked');
    expect(service.lockSubsystem.gateways.gatewayStatus().map((gateway) => [gateway.name, gateway.kind, gateway.radio.state])).toEqual([['Hall', 'esphome', 'online']]);
    expect(logger.text()).not.toMatch(/D-Bus|BlueZ|Bluetooth is unavailable/);
  });
});
