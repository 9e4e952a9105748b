import { EKeyDriver } from '../../../src/families/ekey/driver/ekey-driver.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LockGateway } from '../../../src/gateway/lock-gateway.js';
import { SimulatedLock } from '../../../src/families/ekey/simulator/simulated-lock.js';
import { BluezTransport } from '../../../src/gateway/transports/bluez/bluez-transport.js';
import { startFakeBluezEnvironment, type FakeBluezEnvironment } from '../../support/fake-bluez/fake-bluez-environment.js';
import { testLogger } from '../../support/fake-bluez/test-logger.js';
import { ManualClock } from '../../support/manual-clock.js';
import { until } from '../../support/polling.js';

const KEY_HEX = 'b2'.repeat(32);
const LOCK_ID = '7d0e1f2a-3b4c-4d5e-8f60-718293a4b5c6';
const ADDRESS = 'C0:FF:EE:00:01:01';
const ALEX = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const SAM = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

let environment: FakeBluezEnvironment;

beforeAll(async () => {
  environment = await startFakeBluezEnvironment();
});

afterAll(() => environment.stop());

describe('Credentials characteristic over BlueZ (real dbus-daemon, fake BlueZ, node-ble)', () => {
  it('the gateway writes the allow-list on connect and revokes through the characteristic; the lock enforces it', async () => {
    const clock = new ManualClock();
    const lock = new SimulatedLock({ address: ADDRESS, key: Buffer.from(KEY_HEX, 'hex'), name: 'BlueZ door', clock });
    environment.bluez.addLock(lock);
    const transport = new BluezTransport({ busAddress: environment.busAddress, discoveryIntervalMs: 20, operationTimeoutMs: 3000 });
    const gateway = new LockGateway(transport, clock, testLogger(), { connectTimeoutMs: 5000, operationTimeoutMs: 3000, reconnectBackoff: { initialMs: 20, maxMs: 200 } });
    try {
      gateway.addLock({ id: LOCK_ID, address: ADDRESS, name: 'BlueZ door', driver: new EKeyDriver(KEY_HEX) });
      const validUntil = clock.now() + 3_600_000;
      await gateway.setCredentials(LOCK_ID, [
        { credential: ALEX, validUntil },
        { credential: SAM, validUntil },
      ]);
      expect(lock.checksCredentials).toBe(false); // not connected yet: nothing written
      gateway.start();
      await until(() => gateway.getSnapshot(LOCK_ID)?.connected === true, 'connection');
      await gateway.credentialsSettled(LOCK_ID);
      expect(lock.checksCredentials).toBe(true);
      expect([...lock.allowedCredentials].sort()).toEqual([
        [ALEX, validUntil],
        [SAM, validUntil],
      ]);

      await gateway.setCredentials(LOCK_ID, [{ credential: SAM, validUntil }]);
      expect([...lock.allowedCredentials.keys()]).toEqual([SAM]);
      expect(lock.tap(ALEX, 'unlock')).toBe('refused');
      expect(lock.tap(SAM, 'unlock')).toBe('accepted');
      await until(() => gateway.getSnapshot(LOCK_ID)?.bolt === 'unlocked', 'the tap to be seen');
      // Commands still work on the same link after credential writes.
      expect(await gateway.sendCommand(LOCK_ID, 'lock')).toEqual({ status: 'completed', bolt: 'locked' });
    } finally {
      await gateway.stop();
    }
  });
});
