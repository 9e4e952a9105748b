/**
 * `ekey-locks demo --config FILE` with an `mqtt` section (docs/design.md §6, §11): the demo's
 * simulated locks on a real Mosquitto, driven by control lines, and the last will when the process
 * dies without a word.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemo, type DemoProcess } from '../../support/demo-process.js';
import { startMosquitto, watchBroker, type MosquittoBroker, type WatchingClient } from '../../support/mosquitto-broker.js';

describe('ekey-locks demo --config with mqtt', () => {
  let broker: MosquittoBroker;
  let folder: string;
  let demo: DemoProcess;
  let home: WatchingClient;

  beforeAll(async () => {
    broker = await startMosquitto();
    folder = mkdtempSync(join(tmpdir(), 'ekey-demo-mqtt-'));
    const config = join(folder, 'config.json');
    writeFileSync(config, JSON.stringify({ platform: 'EKeyLocks', demo: false, mqtt: { url: broker.url, username: broker.username, password: broker.password, base_topic: 'demo-home' } }));
    home = await watchBroker(broker, ['demo-home/#', 'homeassistant/device/#']);
    demo = await startDemo({ config, dataDir: join(folder, 'data') });
  });

  afterAll(async () => {
    await demo.stop();
    await home.close();
    await broker.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('publishes the demo household (demo mode wins over the file) and its events', async () => {
    const frontDoor = demo.demo.locks.find((lock) => lock.name === 'Front Door')?.id ?? '';
    expect(demo.demo.locks.length).toBeGreaterThanOrEqual(4);
    await home.next((m) => m.topic === 'demo-home/status' && m.payload === 'online', 'online');
    await home.next((m) => m.topic === `homeassistant/device/demo-home_${frontDoor}/config`, 'the Front Door device');
    expect(await demo.control({ op: 'manual', lock_id: frontDoor, bolt: 'unlocked' })).toMatchObject({ ok: true });
    const event = await home.next((m) => m.topic === `demo-home/${frontDoor}/event`, 'the manual event');
    expect(JSON.parse(event.payload)).toMatchObject({ event_type: 'unlocked', user: null, via: 'manual' });
    await home.next((m) => m.topic === `demo-home/${frontDoor}/state` && m.payload === 'UNLOCKED', 'UNLOCKED');
  });

  it('says offline by its last will when the process is killed', async () => {
    const before = home.messages.length;
    demo.child.kill('SIGKILL');
    await demo.child.exited;
    // Mosquitto sends the will once it notices the lost connection (at once for a closed socket).
    const will = await home.next((m) => home.messages.indexOf(m) >= before && m.topic === 'demo-home/status', 'the last will', 20_000);
    expect(will).toMatchObject({ payload: 'offline', retain: true });
  });
});
