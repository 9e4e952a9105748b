import { expect } from '@jest/globals';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BluezTransport } from '../../src/gateway/transports/bluez/bluez-transport.js';

/*
 * What the BlueZ soaks (test/integration/gateway/*-soak.test.ts) read between their cycles: the
 * D-Bus subscriptions of the transport and the process's memory, each after a full garbage
 * collection, so growth means retention, not garbage.
 */

export const MiB = 1048576;

setFlagsFromString('--expose-gc');
/** A real, full garbage collection. */
export const collectGarbage = runInNewContext('gc') as () => void;

/** One reading of a soak, after `cycle` cycles. */
export interface SoakReading {
  cycle: number;
  /** Rules the daemon counts for our connection (Debug.Stats): the real measure. */
  daemonMatchRules: number | null;
  trackedMatchRules: number;
  signalListeners: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

/** Collects garbage, then reads the transport's subscriptions and the process's memory. */
export async function readSoak(transport: BluezTransport, cycle: number): Promise<SoakReading> {
  collectGarbage();
  const { daemonMatchRules, trackedMatchRules, signalListeners } = await transport.diagnostics();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  return { cycle, daemonMatchRules, trackedMatchRules, signalListeners, rss, heapUsed, heapTotal, external };
}

/** One line of a soak's report. */
export function describeSoakReading(reading: SoakReading): string {
  const mib = (bytes: number): string => (bytes / MiB).toFixed(1);
  return `  after ${reading.cycle}: daemon match rules ${String(reading.daemonMatchRules)}, tracked rules ${reading.trackedMatchRules}, signal listeners ${reading.signalListeners}, rss ${mib(reading.rss)} MiB, heap ${mib(reading.heapUsed)}/${mib(reading.heapTotal)} MiB, external ${mib(reading.external)} MiB`;
}

/** The daemon's, dbus-next's and the proxies' subscriptions are the same at every reading as at the first. */
export function expectFlatSubscriptions(readings: readonly SoakReading[]): void {
  const first = readings[0];
  if (first === undefined) throw new Error('no readings');
  expect(first.daemonMatchRules).not.toBeNull();
  for (const reading of readings) {
    expect(reading.daemonMatchRules).toBe(first.daemonMatchRules);
    expect(reading.trackedMatchRules).toBe(first.trackedMatchRules);
    expect(reading.signalListeners).toBe(first.signalListeners);
  }
}
