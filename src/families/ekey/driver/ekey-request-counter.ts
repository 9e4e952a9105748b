import type { Clock } from '../../../domain/clock.js';

/**
 * The monotonically increasing counter every signed request of our profile carries (Control
 * Point and Credentials share it, docs/ble-protocol.md "Replay protection").
 */
export class EKeyRequestCounter {
  private value = 0n;

  constructor(private readonly clock: Clock) {}

  /** The next counter; a time-based floor keeps it above anything sent before a gateway restart. */
  next(): bigint {
    const floor = BigInt(this.clock.now());
    this.value = this.value >= floor ? this.value + 1n : floor;
    return this.value;
  }

  /** The lock told us (authenticated) it has seen `highest`: continue above it. */
  catchUp(highest: bigint): void {
    if (highest > this.value) this.value = highest;
  }
}
