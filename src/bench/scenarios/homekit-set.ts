import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { EventEmitter } from 'node:events';
import type { API, Categories, Logging, PlatformAccessory, PlatformConfig } from 'homebridge';
import { startBenchProcess } from '../bench-process.js';
import type { SelfMeasuringOptions, SelfMeasuringScenario } from '../scenario.js';
import { EKeyLocksPlatform } from '../../homebridge/ekey-locks-platform.js';
import { PLATFORM_NAME } from '../../homebridge/platform-name.js';
import { describeFault } from '../../domain/errors.js';

/*
 * `homekit-set`: how long from a HomeKit controller's write of LockTargetState until it receives
 * the LockCurrentState event, through the real platform, service, command engine and gateway to
 * a zero-latency simulated lock (the demo's), with the data folder on the real disk. HAP batches
 * events for 250 ms, so the target is p99 ≤ 300 ms.
 *
 * The bridge runs in a child process (`--serve`): Homebridge's own API object with the plugin's
 * platform and a hap-nodejs Bridge publishing its accessories (mDNS bound to `lo`). This process is
 * the controller: hap-controller pairs with the PIN, subscribes and writes, as the Home app does.
 */

/** What one run of the scenario measured (its `npm run bench` line). */
export interface LatencyResult extends Record<string, unknown> {
  scenario: string;
  samples: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  target_p99_ms: number;
  /** p99 within the target. */
  ok: boolean;
  /** The service's data folder was in RAM (/dev/shm); false: on the real disk (docs/design.md §8). */
  data_in_ram: boolean;
}

const SCENARIO_NAME = 'homekit-set';
const TARGET_P99_MS = 300;
const DEFAULT_SAMPLES = 100;
const EVENT_TIMEOUT_MS = 2000;
const FRONT_DOOR_SERIAL = 'D0:E1:00:00:00:01';
const HAP_LOCK_MECHANISM = '00000045-0000-1000-8000-0026BB765291';
const HAP_LOCK_CURRENT_STATE = '0000001D-0000-1000-8000-0026BB765291';
const HAP_LOCK_TARGET_STATE = '0000001E-0000-1000-8000-0026BB765291';
const HAP_SERIAL_NUMBER = '00000030-0000-1000-8000-0026BB765291';

/** HAP const enums (not readable at run time under verbatimModuleSyntax): Categories.BRIDGE, MDNSAdvertiser.CIAO. */
const BRIDGE_CATEGORY = 2 as unknown as Categories;
const CIAO_ADVERTISER = 'ciao' as unknown as NonNullable<Parameters<InstanceType<API['hap']['Bridge']>['publish']>[0]['advertiser']>;

/** The child's ready line. */
interface ServeInfo {
  port: number;
  pin: string;
  username: string;
}

/** The parts of hap-controller this scenario uses (a devDependency, loaded only when measuring). */
interface HapClient extends EventEmitter {
  pairSetup(pin: string): Promise<void>;
  getAccessories(): Promise<{ accessories: { aid: number; services: { type: string; characteristics: { iid: number; type: string; value?: unknown }[] }[] }[] }>;
  subscribeCharacteristics(ids: string[]): Promise<unknown>;
  setCharacteristics(values: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}
interface HapControllerModule {
  HttpClient: new (id: string, address: string, port: number, pairing?: unknown, options?: { usePersistentConnections?: boolean }) => HapClient;
  Characteristic: { ensureCharacteristicUuid(uuid: string): string };
  Service: { ensureServiceUuid(uuid: string): string };
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
const round2 = (value: number): number => Number(value.toFixed(2));

/** The scenario, for the bench registry (`src/bench/scenarios/index.ts`). */
export const homekitSet: SelfMeasuringScenario = {
  name: SCENARIO_NAME,
  description: `HAP write of LockTargetState → LockCurrentState event (hap-controller, zero-latency simulated lock; target p99 ≤ ${TARGET_P99_MS} ms)`,
  run: (options) => measureHomekitSet({ samples: Math.max(DEFAULT_SAMPLES, Math.round(options.durationS * 4)), log: options.log }),
};

/** Runs the measurement; `samples` writes after a warm-up pair. */
export async function measureHomekitSet(options: { samples?: number; log?: SelfMeasuringOptions['log'] } = {}): Promise<LatencyResult> {
  const samples = options.samples ?? DEFAULT_SAMPLES;
  // docs/design.md §8: data on the real disk (the temporary directory), as a user's Homebridge has it.
  const inRam = false;
  const dataDir = mkdtempSync(join(tmpdir(), 'ekey-bench-homekit-'));
  const bridge = await startBenchProcess('./scenarios/homekit-set.js', ['--serve', dataDir]);
  try {
    const info = bridge.info as ServeInfo;
    const durations = await hapSetToEvent({ port: info.port, pin: info.pin, username: info.username }, samples);
    const p99 = percentile(durations, 99);
    options.log?.(`${SCENARIO_NAME}: ${durations.length} writes, p50 ${round2(percentile(durations, 50))} ms, p99 ${round2(p99)} ms`);
    return {
      scenario: SCENARIO_NAME,
      samples: durations.length,
      p50_ms: round2(percentile(durations, 50)),
      p99_ms: round2(p99),
      max_ms: round2(durations[durations.length - 1] ?? 0),
      target_p99_ms: TARGET_P99_MS,
      ok: p99 <= TARGET_P99_MS,
      data_in_ram: inRam,
    };
  } finally {
    await bridge.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A HomeKit controller (hap-controller, as the Home app) against a bridge on loopback: pairs with
 * the PIN, subscribes to the Front Door's LockCurrentState, then writes LockTargetState `samples`
 * times (after a warm-up pair), alternating unlock and lock, each time waiting for the event.
 * Returns the write → event times, ms, sorted. Also used by `pi-budget`.
 */
export async function hapSetToEvent(target: { port: number; pin: string; username: string }, samples: number, eventTimeoutMs = EVENT_TIMEOUT_MS): Promise<number[]> {
  const hap = (await import('hap-controller')) as unknown as HapControllerModule;
  const client = new hap.HttpClient(target.username, '127.0.0.1', target.port, undefined, { usePersistentConnections: true });
  try {
    await client.pairSetup(target.pin);
    const { accessories } = await client.getAccessories();
    const same = (a: string, b: string): boolean => a.toUpperCase() === b.toUpperCase();
    const lock = accessories.find((accessory) =>
      accessory.services.some((service) =>
        service.characteristics.some((entry) => same(hap.Characteristic.ensureCharacteristicUuid(entry.type), HAP_SERIAL_NUMBER) && entry.value === FRONT_DOOR_SERIAL),
      ),
    );
    const mechanism = lock?.services.find((service) => same(hap.Service.ensureServiceUuid(service.type), HAP_LOCK_MECHANISM));
    const iidOf = (uuid: string): number | undefined =>
      mechanism?.characteristics.find((entry) => same(hap.Characteristic.ensureCharacteristicUuid(entry.type), uuid))?.iid;
    const currentIid = iidOf(HAP_LOCK_CURRENT_STATE);
    const targetIid = iidOf(HAP_LOCK_TARGET_STATE);
    if (!lock || currentIid === undefined || targetIid === undefined) throw new Error('the Front Door lock accessory was not found');
    const current = `${lock.aid}.${currentIid}`;
    const targetState = `${lock.aid}.${targetIid}`;
    const currentValue = mechanism?.characteristics.find((entry) => entry.iid === currentIid)?.value;

    let waiting: { value: number; resolve: (at: number) => void } | undefined;
    client.on('event', (body: { characteristics?: { aid: number; iid: number; value: unknown }[] }) => {
      const at = performance.now();
      for (const entry of body.characteristics ?? []) {
        if (`${entry.aid}.${entry.iid}` === current && waiting && entry.value === waiting.value) {
          waiting.resolve(at);
          waiting = undefined;
        }
      }
    });
    await client.subscribeCharacteristics([current]);

    const durations: number[] = [];
    // Alternate unlock (0) / lock (1), starting with the state the lock is not in; one warm-up pair first.
    const first = currentValue === 0 ? 1 : 0;
    for (let index = -2; index < samples; index++) {
      const value = index % 2 === 0 ? first : 1 - first;
      const arrived = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no LockCurrentState=${value} event within ${eventTimeoutMs} ms`));
        }, eventTimeoutMs);
        waiting = {
          value,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        };
      });
      const started = performance.now();
      await client.setCharacteristics({ [targetState]: value });
      const at = await arrived;
      if (index >= 0) durations.push(at - started);
    }
    return durations.sort((a, b) => a - b);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** A Homebridge `Logging` that writes warnings and errors to stderr. */
function benchLogging(): Logging {
  const write = (message: string): void => {
    process.stderr.write(`[homekit-set bridge] ${message}\n`);
  };
  const quiet = (): void => undefined;
  const log = Object.assign(quiet, { prefix: 'EKeyLocks', info: quiet, success: quiet, debug: quiet, warn: write, error: write, log: quiet });
  return log;
}

/**
 * The child: Homebridge's API object (from the resolved homebridge `dist/api.js`), the platform
 * in demo mode, and a hap-nodejs Bridge on a free port holding what the platform registers.
 * Prints `{port, pin, username}` once the bridge is published.
 */
async function serve(dataDir: string): Promise<void> {
  const distFolder = dirname(createRequire(import.meta.url).resolve('homebridge'));
  const module = (await import(pathToFileURL(join(distFolder, 'api.js')).href)) as { HomebridgeAPI: new () => API & { signalFinished(): void; signalShutdown(): void } };
  const api = new module.HomebridgeAPI();
  api.user.setStoragePath(join(dataDir, 'homebridge'));
  api.hap.HAPStorage.setCustomStoragePath(join(dataDir, 'homebridge', 'persist'));
  const bridge = new api.hap.Bridge('eKey Bench', api.hap.uuid.generate('ekey-locks-bench'));
  (api as unknown as EventEmitter).on('registerPlatformAccessories', (accessories: PlatformAccessory[]) => {
    for (const accessory of accessories) bridge.addBridgedAccessory(accessory._associatedHAPAccessory);
  });
  const config = { platform: PLATFORM_NAME, name: 'eKey Locks', demo: true } as PlatformConfig;
  const platform = new EKeyLocksPlatform(benchLogging(), config, api, { writeDemoLine: () => undefined });
  api.signalFinished();
  await platform.whenStarted();

  const info = { username: '0E:4B:00:00:BE:01', pin: '031-45-154' };
  const listening = new Promise<number>((resolve) => bridge.once('listening', (port: number) => {
    resolve(port);
  }));
  // The bench is the only controller: mDNS stays on loopback; it pairs by address, not discovery.
  await bridge.publish({ username: info.username, pincode: info.pin, port: 0, category: BRIDGE_CATEGORY, bind: ['lo'], advertiser: CIAO_ADVERTISER });
  process.stdout.write(`${JSON.stringify({ ...info, port: await listening })}\n`);

  const stop = (): void => {
    api.signalShutdown();
    bridge
      .unpublish()
      .catch(() => undefined)
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--serve') {
  serve(process.argv[3] ?? mkdtempSync(join(tmpdir(), 'ekey-bench-homekit-'))).catch((error: unknown) => {
    process.stderr.write(`homekit-set bridge failed: ${describeFault(error)}\n`);
    process.exit(1);
  });
}
