/**
 * What the platform's unit tests share, HomeKit's (test/unit/homebridge) and Matter's
 * (test/unit/matter): Olivia's household on the in-memory lock port — the Front Door online, the
 * Garden Gate never reached — and a Homebridge API harness per test, shut down after it.
 */
import { afterEach } from '@jest/globals';
import { createHomebridgeHarness, type HomebridgeHarness } from './homebridge-api.js';
import { testLock } from './in-memory-lock-port.js';

export const FRONT_DOOR = testLock({ id: '6f1d2c3b-0000-4000-8000-000000000001', name: 'Front Door', bleAddress: 'D0:E1:00:00:00:01', ownerId: 'olivia' });
export const GARDEN_GATE = testLock({
  id: '6f1d2c3b-0000-4000-8000-000000000002',
  name: 'Garden Gate',
  bleAddress: 'D0:E1:00:00:00:02',
  ownerId: 'olivia',
  bolt: 'unknown',
  online: false,
  batteryLevel: null,
  deviceInformation: null,
});
export const HOUSEHOLD_USERS = [
  { id: 'olivia', name: 'Olivia Owner', email: 'olivia@example.com' },
  { id: 'alex', name: 'Alex Adams', email: 'alex@example.com' },
  { id: 'blake', name: 'Blake Brown', email: 'blake@example.com' },
];

/** Returns a harness factory; every harness it made is shut down after its test, as Homebridge does at exit. */
export function harnessPerTest(): () => Promise<HomebridgeHarness> {
  const running: HomebridgeHarness[] = [];
  afterEach(() => {
    for (const harness of running.splice(0)) harness.api.signalShutdown();
  });
  return async () => {
    const harness = await createHomebridgeHarness();
    running.push(harness);
    return harness;
  };
}
