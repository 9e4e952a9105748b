/**
 * The lock's replay protection: remembers the highest request counter it accepted and refuses
 * any counter that is not above it, so a captured frame can never be played again.
 * (docs/ble-protocol.md "Replay protection"). Firmware keeps the high-water mark in flash.
 */
export class ReplayGuard {
  constructor(private highest: bigint = 0n) {}

  /** Highest counter accepted so far. */
  get highestAccepted(): bigint {
    return this.highest;
  }

  /** Accepts and records `counter` when it is fresh; returns false for a replay. */
  accept(counter: bigint): boolean {
    if (counter <= this.highest) return false;
    this.highest = counter;
    return true;
  }
}
