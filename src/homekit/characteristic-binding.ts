import type { Characteristic, CharacteristicValue, Service, WithUUID } from 'homebridge';
import { describeError } from '../domain/errors.js';
import type { Logger } from '../logger.js';

/** How one characteristic is wired. */
export interface CharacteristicBindingOptions<Value extends CharacteristicValue> {
  /** The value HomeKit sees until the first {@link CharacteristicBinding.push}. */
  initial: Value;
  /** Names the characteristic in logs, e.g. `Front Door LockTargetState`. */
  label: string;
  logger: Logger;
  /**
   * Handles a controller's write. Must return at once (start work, do not await it); the value
   * written becomes the remembered value, `previous` is the one it replaced. A throw is logged and
   * goes no further: the controller's write still succeeds, and the error never reaches Homebridge.
   * A handler reports a failed outcome itself, by pushing values (the lock accessory puts the
   * target state back).
   */
  onWrite?: (value: CharacteristicValue, previous: Value) => void;
}

/**
 * One characteristic whose value lives in memory: reads answer the remembered value (never I/O,
 * never a thrown error), {@link push} sends an event only when the value changed, and writes go to
 * one handler that cannot take Homebridge down. Every characteristic of the lock accessory is
 * wired through {@link bindCharacteristic}, so these rules hold in one place.
 */
export class CharacteristicBinding<Value extends CharacteristicValue> {
  private remembered: Value;

  constructor(
    readonly characteristic: Characteristic,
    private readonly options: CharacteristicBindingOptions<Value>,
  ) {
    this.remembered = options.initial;
    characteristic.updateValue(options.initial);
    characteristic.onGet(() => this.remembered);
    const onWrite = options.onWrite;
    if (onWrite) {
      characteristic.onSet((value) => {
        const previous = this.remembered;
        this.remembered = value as Value;
        try {
          onWrite(value, previous);
        } catch (error) {
          this.options.logger.error(`${this.options.label}: write failed: ${describeError(error)}`);
        }
      });
    }
  }

  /** The value HomeKit currently sees. */
  get value(): Value {
    return this.remembered;
  }

  /** Sets a new value and notifies controllers, unless it equals the value they already have. */
  push(value: Value): void {
    if (value === this.remembered) return;
    this.remembered = value;
    this.options.logger.debug(`${this.options.label} → ${JSON.stringify(value)}`);
    this.characteristic.updateValue(value);
  }
}

/** Wires a characteristic of a service (adding it when the service lacks it). */
export function bindCharacteristic<Value extends CharacteristicValue>(
  service: Service,
  type: WithUUID<new () => Characteristic>,
  options: CharacteristicBindingOptions<Value>,
): CharacteristicBinding<Value> {
  return new CharacteristicBinding(service.getCharacteristic(type), options);
}
