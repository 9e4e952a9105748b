import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EventEmitter } from 'node:events';
import { jest } from '@jest/globals';
import type { API, Logging, PlatformAccessory } from 'homebridge';

/** Homebridge's own API object (not exported by the package entry), as the tests use it. */
export type HomebridgeApi = API & { signalFinished(): void; signalShutdown(): void };

/** What the bridge would hold: the platform accessories currently registered, by UUID. */
export interface HomebridgeHarness {
  api: HomebridgeApi;
  /** Registered (or restored and updated) accessories by UUID, as a bridge would publish them. */
  published: Map<string, PlatformAccessory>;
  /** Counts of the platform's register/update/unregister calls. */
  calls: { register: number; update: number; unregister: number };
  /** Homebridge's cache format: what a restart would hand back through configureAccessory. */
  serializeCache(): unknown[];
  /** Restores serialised accessories as Homebridge does on start-up. */
  deserialize(cache: unknown[]): PlatformAccessory[];
}

interface HomebridgeApiModule {
  HomebridgeAPI: new () => HomebridgeApi;
}

interface PlatformAccessoryStatics {
  serialize(accessory: PlatformAccessory): unknown;
  deserialize(json: unknown): PlatformAccessory;
}

let storageRoot: string | undefined;

/**
 * Constructs Homebridge's real `HomebridgeAPI` (from the resolved homebridge `dist/api.js`, by file
 * URL) with HAP and Homebridge storage in a temporary folder, and records what platforms
 * register, update and unregister, as Homebridge's server would.
 */
export async function createHomebridgeHarness(): Promise<HomebridgeHarness> {
  const distFolder = dirname(createRequire(import.meta.url).resolve('homebridge'));
  // pluginManager.js calls require.resolve.paths(''), which Jest's module runtime rejects. The API
  // object only uses it to check plugin identifiers when publishing external accessories.
  jest.unstable_mockModule(join(distFolder, 'pluginManager.js'), () => ({
    PluginManager: { isQualifiedPluginIdentifier: (identifier: string) => /^(@[\w-]+\/)?homebridge-[\w-]+$/.test(identifier) },
  }));
  const module = (await import(pathToFileURL(join(distFolder, 'api.js')).href)) as HomebridgeApiModule;
  const api = new module.HomebridgeAPI();
  if (storageRoot === undefined) {
    storageRoot = mkdtempSync(join(tmpdir(), 'ekey-homebridge-'));
    api.user.setStoragePath(storageRoot);
    api.hap.HAPStorage.setCustomStoragePath(join(storageRoot, 'persist'));
  }
  const published = new Map<string, PlatformAccessory>();
  const calls = { register: 0, update: 0, unregister: 0 };
  const internal = api as unknown as EventEmitter;
  internal.on('registerPlatformAccessories', (accessories: PlatformAccessory[]) => {
    calls.register += 1;
    for (const accessory of accessories) published.set(accessory.UUID, accessory);
  });
  internal.on('updatePlatformAccessories', (accessories: PlatformAccessory[]) => {
    calls.update += 1;
    for (const accessory of accessories) published.set(accessory.UUID, accessory);
  });
  internal.on('unregisterPlatformAccessories', (accessories: PlatformAccessory[]) => {
    calls.unregister += 1;
    for (const accessory of accessories) published.delete(accessory.UUID);
  });
  const statics = api.platformAccessory as unknown as PlatformAccessoryStatics;
  return {
    api,
    published,
    calls,
    serializeCache: () => [...published.values()].map((accessory) => statics.serialize(accessory)),
    deserialize: (cache) => cache.map((json) => statics.deserialize(json)),
  };
}

/** A Homebridge `Logging` that keeps lines (prefix-free) for assertions. */
export function recordingLogging(): Logging & { lines: { level: string; message: string }[]; text(): string } {
  const lines: { level: string; message: string }[] = [];
  const record =
    (level: string) =>
    (message: string, ...parameters: unknown[]): void => {
      lines.push({ level, message: [message, ...parameters.map((parameter) => String(parameter))].join(' ') });
    };
  const log = Object.assign(record('info'), {
    prefix: 'EKeyLocks',
    info: record('info'),
    success: record('success'),
    warn: record('warn'),
    error: record('error'),
    debug: record('debug'),
    log: (level: string, message: string, ...parameters: unknown[]) => {
      record(level)(message, ...parameters);
    },
    lines,
    text: () => lines.map((line) => `${line.level} ${line.message}`).join('\n'),
  });
  return log;
}
