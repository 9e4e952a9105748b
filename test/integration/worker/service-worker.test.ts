import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Worker } from 'node:worker_threads';
import type { PlatformConfig } from 'homebridge';
import { EKeyLocksPlatform, type EmbeddedServiceOpener } from '../../../src/homebridge/ekey-locks-platform.js';
import type { LockChange } from '../../../src/lock-port/lock-port.js';
import { PLATFORM_NAME } from '../../../src/homebridge/platform-name.js';
import { SERVICE_YOUNG_GENERATION_MB, openServiceInWorker, type WorkerEmbeddedService } from '../../../src/worker/open-service-worker.js';
import { ensureBuild, runNode } from '../../support/child-process.js';
import { createHomebridgeHarness, recordingLogging } from '../../support/homebridge-api.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { failOnUnhandledRejections } from '../../support/unhandled-rejections.js';
import { startFakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { ManualClock } from '../../support/manual-clock.js';
import { until } from '../../support/polling.js';

/*
 * The embedded service on a real worker thread. ts-jest cannot start a `.ts` worker, so the
 * worker's entry is the built one (ensureBuild: src/ transpiled into node_modules/.cache); the
 * main thread's side is the source under test.
 */

const LOCK = {
  id: '6f1d2c3b-0000-4000-8000-000000000001',
  name: 'Front Door',
  bleAddress: 'D0:E1:00:00:00:01',
  family: 'ekey',
  commands: ['lock', 'unlock'],
  modes: null,
  ownerId: 'olivia',
  bolt: 'locked',
  moving: false,
  online: true,
  batteryLevel: 0.9,
  lastActivitySource: null,
  deviceInformation: null,
  door: null,
};

/** A worker that opens, answers listen with one lock (and no demo line), then throws (an uncaught error in the thread). */
const CRASHING_WORKER = `
import { parentPort } from 'node:worker_threads';
parentPort.postMessage({ type: 'opened', demoControl: false });
parentPort.on('message', (message) => {
  if (message.method === 'demoInfo') parentPort.postMessage({ type: 'reply', id: message.id, ok: true, value: undefined });
  if (message.method !== 'listen') return;
  parentPort.postMessage({ type: 'reply', id: message.id, ok: true, value: { url: 'http://127.0.0.1:1', homekit: { locks: [${JSON.stringify(LOCK)}], users: {} } } });
  setTimeout(() => { throw new Error('boom in the service thread'); }, 100);
});
`;

/**
 * A worker that allocates a busy start's worth of short-lived objects, then reports its limits and
 * how large V8 let its new space grow.
 */
const YOUNG_GENERATION_WORKER = `
import { parentPort, resourceLimits } from 'node:worker_threads';
import { getHeapSpaceStatistics } from 'node:v8';
let kept = [];
for (let round = 0; round < 200; round += 1) {
  kept = [];
  for (let index = 0; index < 20000; index += 1) kept.push({ index, text: 'x'.repeat(16) + index });
}
const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
parentPort.postMessage({ type: 'opened', demoControl: false });
parentPort.on('message', (message) => {
  if (message.method === 'close') {
    parentPort.postMessage({ type: 'reply', id: message.id, ok: true, value: undefined });
    setImmediate(() => process.exit(0));
  }
  if (message.method !== 'listen') return;
  parentPort.postMessage({ type: 'reply', id: message.id, ok: false, error: JSON.stringify({ limit: resourceLimits.maxYoungGenerationSizeMb, newSpace: newSpace.space_size, kept: kept.length }) });
});
`;

/** Opens the service on its worker thread from the built entry with one BlueZ lock; prints whether it came online. */
const BLUEZ_CHILD = (openerUrl: string, entryUrl: string): string => `
const { openServiceInWorker } = await import(${JSON.stringify(openerUrl)});
const lines = [];
const logger = Object.fromEntries(['debug', 'info', 'warn', 'error'].map((level) => [level, (line) => lines.push(level + ' ' + line)]));
const service = await openServiceInWorker({ config: JSON.parse(process.argv[3]), dataDir: process.argv[2], logger, demo: false }, { entry: new URL(${JSON.stringify(entryUrl)}) });
await service.listen(0, '127.0.0.1');
const port = service.lockPort();
const [lock] = port.listLocks();
const ready = () => port.getLock(lock.id)?.online === true && lines.some((line) => line.endsWith(' is online.'));
// Bounded polling, as until() in test/support/polling.ts does (this plain child script cannot import it).
for (let waited = 0; waited < 10000 && !ready(); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
const online = port.getLock(lock.id)?.online === true;
await service.close();
process.stdout.write(JSON.stringify({ online, log: lines.join('\\n') }) + '\\n');
`;

/**
 * Resolves once the next worker thread this process starts has exited (Node announces every new
 * thread on the `worker_threads` diagnostics channel). Its `exit` is the last thing the service's
 * opener reacts to, so once it resolved, what a crash leads to has all happened.
 */
function nextThreadExit(): Promise<number> {
  return new Promise((resolve) => {
    const onThread = (message: unknown): void => {
      unsubscribe('worker_threads', onThread);
      (message as { worker: Worker }).worker.once('exit', resolve);
    };
    subscribe('worker_threads', onThread);
  });
}

/** Wraps an opener so the test learns when the platform's close of the service has ended. */
function watchClose(open: EmbeddedServiceOpener): { open: EmbeddedServiceOpener; closed: () => boolean } {
  let closed = false;
  return {
    open: async (options) => {
      const service = await open(options);
      return {
        ...service,
        close: async () => {
          await service.close();
          closed = true;
        },
      };
    },
    closed: () => closed,
  };
}

describe('the embedded service on a worker thread', () => {
  const work = mkdtempSync(join(tmpdir(), 'ekey-worker-'));
  let entry: URL;
  let crashing: URL;
  let youngGeneration: URL;
  const opened: WorkerEmbeddedService[] = [];

  beforeAll(() => {
    // The entry the platform starts (src/worker/open-service-worker.ts): the bundled service thread.
    entry = pathToFileURL(join(ensureBuild(), 'worker', 'service-thread.js'));
    const crashFile = join(work, 'crashing-worker.mjs');
    writeFileSync(crashFile, CRASHING_WORKER);
    crashing = pathToFileURL(crashFile);
    const youngFile = join(work, 'young-generation-worker.mjs');
    writeFileSync(youngFile, YOUNG_GENERATION_WORKER);
    youngGeneration = pathToFileURL(youngFile);
  });

  afterEach(async () => {
    for (const service of opened.splice(0)) await service.close();
  });
  failOnUnhandledRejections();

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('opens the demo service in the thread: snapshot, changes from control lines, HomeKit commands, clean close', async () => {
    const logger = new RecordingLogger();
    const service = await openServiceInWorker({ config: { demo: true }, dataDir: mkdtempSync(join(work, 'data-')), logger, demo: true }, { entry });
    opened.push(service);
    const url = await service.listen(0, '127.0.0.1');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The demo line comes once its logins work (their passwords are hashed after listen).
    const demo = await service.demoInfo();
    expect(demo?.base_url).toBe(url);
    const port = service.lockPort?.();
    if (!port || !demo) throw new Error('no HomeKit port or demo info');
    expect(port.listLocks().map((lock) => lock.name).sort()).toEqual(['Back Door', 'Building Door', 'Front Door', 'Garden Gate', 'Side Door']);
    const front = demo.locks.find((lock) => lock.name === 'Front Door');
    const owner = demo.users[0];
    if (!front || !owner) throw new Error('demo household incomplete');
    // The REST API answers from the thread.
    expect((await fetch(`${url}/me`)).status).toBe(401);

    const changes: LockChange[] = [];
    port.subscribe((change) => changes.push(change));
    const control = service.demoControl?.();
    if (!control) throw new Error('no demo control');
    expect(JSON.parse(await control(JSON.stringify({ op: 'battery', lock_id: front.id, level: 0.15 })))).toEqual({ ok: true });
    await until(() => port.getLock(front.id)?.batteryLevel === 0.15, 'the battery change');
    expect(port.getLock(front.id)?.batteryLevel).toBe(0.15);
    expect(changes).toContainEqual({ kind: 'battery', lockId: front.id, level: 0.15 });

    // Wait until the gateway reaches Front Door (commands need it online), then unlock as the owner.
    await until(() => port.getLock(front.id)?.online === true, 'Front Door online');
    const result = await port.requestBolt(front.id, 'unlocked', owner.id);
    expect(result).toMatchObject({ status: 'completed', bolt: 'unlocked' });
    expect(await port.requestBolt(front.id, 'locked', 'no-such-user')).toEqual({ status: 'rejected', reason: 'unknown_user' });
    expect(logger.text()).toContain('Lock Front Door (D0:E1:00:00:00:01) is online.');

    opened.pop();
    await service.close();
    await expect(port.requestBolt(front.id, 'locked', owner.id)).resolves.toEqual({ status: 'rejected', reason: 'unavailable' });
    expect(logger.lines.filter((line) => line.level === 'error')).toEqual([]);
  }, 30_000);

  it('caps the young generation of the thread, so a busy start does not leave it holding a 32 MiB new space', async () => {
    const service = await openServiceInWorker({ config: {}, dataDir: mkdtempSync(join(work, 'data-')), logger: new RecordingLogger() }, { entry: youngGeneration });
    opened.push(service);
    const report = await service.listen(0, '127.0.0.1').then(
      () => undefined,
      (error: unknown) => JSON.parse(error instanceof Error ? error.message : String(error)) as { limit: number; newSpace: number; kept: number },
    );
    expect(report).toMatchObject({ limit: SERVICE_YOUNG_GENERATION_MB, kept: 20000 });
    // Two semi-spaces of a third of the young generation each, at most.
    expect(report?.newSpace).toBeLessThanOrEqual(((2 * SERVICE_YOUNG_GENERATION_MB) / 3) * 1024 * 1024);
  });

  it('rejects with a clear message and ends the thread when the service cannot open', async () => {
    const notAFolder = join(work, 'a-file');
    writeFileSync(notAFolder, 'x');
    const logger = new RecordingLogger();
    await expect(openServiceInWorker({ config: { demo: true }, dataDir: join(notAFolder, 'data'), logger, demo: true }, { entry })).rejects.toThrow(
      /the access service could not open: .*ENOTDIR/,
    );
    expect(logger.lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('a crash of the thread: one error line, the locks go offline, commands answer unavailable, nothing thrown', async () => {
    const logger = new RecordingLogger();
    const exited = nextThreadExit();
    const service = await openServiceInWorker({ config: { demo: true }, dataDir: work, logger, demo: true }, { entry: crashing });
    opened.push(service);
    await service.listen(0, '127.0.0.1');
    const port = service.lockPort?.();
    if (!port) throw new Error('no port');
    const changes: LockChange[] = [];
    port.subscribe((change) => changes.push(change));
    await until(() => changes.length > 0, 'the lock to go offline');
    // The thread's error comes before its exit: once it exited, nothing more is on the way.
    await exited;
    expect(changes).toEqual([{ kind: 'connectivity', lockId: LOCK.id, online: false }]);
    const errors = logger.lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toMatch(/eKey access service stopped unexpectedly \(.*boom in the service thread/s);
    await expect(port.requestBolt(LOCK.id, 'unlocked', 'olivia')).resolves.toEqual({ status: 'rejected', reason: 'unavailable' });
  });

  it('a real lock over BlueZ: the thread loads the BlueZ transport on first use and reaches the lock', async () => {
    // The bundle requires the BlueZ stack only on first use (scripts/service-thread-bundle.mjs): this is
    // the path that loads it, from the built files, against a fake BlueZ on a real dbus-daemon. A
    // child Node, so the thread sees the bus in its real environment (Jest's process.env is a copy).
    const bluez = await startFakeBluezEnvironment();
    try {
      const key = 'b7'.repeat(32);
      const address = 'C0:FF:EE:00:0B:01';
      bluez.bluez.addLock(new SimulatedLock({ address, key: Buffer.from(key, 'hex'), name: 'Chunk Door', clock: new ManualClock(), batteryPercent: 70, motorTimeMs: 0 }));
      const script = join(work, 'bluez-through-chunk.mjs');
      writeFileSync(script, BLUEZ_CHILD(pathToFileURL(join(ensureBuild(), 'worker', 'open-service-worker.js')).href, entry.href));
      const config = { bluetooth: { transport: 'bluez' }, locks: [{ name: 'Chunk Door', address, key, owner_email: 'owner@chunk.example.com', gateway: true }] };
      const result = await runNode(script, [mkdtempSync(join(work, 'bluez-')), JSON.stringify(config)], { env: { DBUS_SYSTEM_BUS_ADDRESS: bluez.busAddress }, timeoutMs: 20_000 });
      const answer = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as { online?: boolean; log?: string };
      expect({ code: result.code, online: answer.online }).toEqual({ code: 0, online: true });
      expect(answer.log).toContain(`Lock Chunk Door (${address}) is online.`);
    } finally {
      await bluez.stop();
    }
  });

  it('inside Homebridge: a crash of the thread shows StatusFault on the accessory and leaves the bridge running', async () => {
    const harness = await createHomebridgeHarness();
    const log = recordingLogging();
    const config = { platform: PLATFORM_NAME, name: 'eKey Locks', demo: true } as PlatformConfig;
    const service = watchClose((options) => openServiceInWorker(options, { entry: crashing }));
    const platform = new EKeyLocksPlatform(log, config, harness.api, {
      openService: service.open,
      writeDemoLine: () => undefined,
    });
    harness.api.signalFinished();
    await platform.whenStarted();
    const accessory = harness.published.get(harness.api.hap.uuid.generate(LOCK.id));
    if (!accessory) throw new Error('no accessory');
    const { Service, Characteristic } = harness.api.hap;
    const fault = accessory.getService(Service.LockMechanism)?.getCharacteristic(Characteristic.StatusFault);
    expect(fault?.value).toBe(Characteristic.StatusFault.NO_FAULT);
    await until(() => fault?.value === Characteristic.StatusFault.GENERAL_FAULT, 'StatusFault');
    expect(fault?.value).toBe(Characteristic.StatusFault.GENERAL_FAULT);
    expect(log.lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      expect.stringContaining('eKey access service stopped unexpectedly'),
    ]);
    harness.api.signalShutdown();
    await until(service.closed, 'the platform to close the service');
  });

  it('inside Homebridge: a service that cannot open disables the plugin with one clear error; the bridge runs on', async () => {
    const notAFolder = join(work, 'another-file');
    writeFileSync(notAFolder, 'x');
    const harness = await createHomebridgeHarness();
    const log = recordingLogging();
    const config = { platform: PLATFORM_NAME, name: 'eKey Locks', demo: true } as PlatformConfig;
    const platform = new EKeyLocksPlatform(log, config, harness.api, {
      openService: (options) => openServiceInWorker({ ...options, dataDir: join(notAFolder, 'data') }, { entry }),
      writeDemoLine: () => undefined,
    });
    harness.api.signalFinished();
    await platform.whenStarted();
    expect(log.lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      expect.stringMatching(/^eKey Locks could not start: .*the access service could not open: .*ENOTDIR/s),
    ]);
    expect(harness.published.size).toBe(0);
    // Nothing to wait for: the failed start already ended the thread, and no service is left to close.
    harness.api.signalShutdown();
  });
});
