import { describe, expect, it } from '@jest/globals';
import { Characteristic, Service } from '@homebridge/hap-nodejs';
import type { Service as HomebridgeService } from 'homebridge';
import { bindCharacteristic } from '../../../src/homekit/characteristic-binding.js';
import { RecordingLogger } from '../../support/recording-logger.js';

/** What the comment of characteristic-binding.ts promises, held against hap-nodejs's own request handling. */
describe('bindCharacteristic', () => {
  const service = (): HomebridgeService => new Service.LockMechanism('Front Door');

  it('answers reads from memory and events only changed values', async () => {
    const logger = new RecordingLogger();
    const binding = bindCharacteristic<number>(service(), Characteristic.LockCurrentState, { initial: Characteristic.LockCurrentState.UNKNOWN, label: 'Front Door LockCurrentState', logger });
    await expect(binding.characteristic.handleGetRequest()).resolves.toBe(Characteristic.LockCurrentState.UNKNOWN);
    const events: unknown[] = [];
    binding.characteristic.on('change', (change: { newValue: unknown }) => events.push(change.newValue));
    binding.push(Characteristic.LockCurrentState.SECURED);
    binding.push(Characteristic.LockCurrentState.SECURED);
    expect(events).toEqual([Characteristic.LockCurrentState.SECURED]);
    await expect(binding.characteristic.handleGetRequest()).resolves.toBe(Characteristic.LockCurrentState.SECURED);
  });

  it('keeps a throwing write handler from the controller and from Homebridge: the write succeeds, the error is logged', async () => {
    const logger = new RecordingLogger();
    const seen: [unknown, unknown][] = [];
    const binding = bindCharacteristic<number>(service(), Characteristic.LockTargetState, {
      initial: Characteristic.LockTargetState.SECURED,
      label: 'Front Door LockTargetState',
      logger,
      onWrite: (value, previous) => {
        seen.push([value, previous]);
        throw new Error('handler bug');
      },
    });
    await expect(binding.characteristic.handleSetRequest(Characteristic.LockTargetState.UNSECURED)).resolves.toBeUndefined();
    expect(seen).toEqual([[Characteristic.LockTargetState.UNSECURED, Characteristic.LockTargetState.SECURED]]);
    expect(binding.value).toBe(Characteristic.LockTargetState.UNSECURED);
    expect(logger.lines).toEqual([{ level: 'error', message: 'Front Door LockTargetState: write failed: handler bug' }]);
  });
});
