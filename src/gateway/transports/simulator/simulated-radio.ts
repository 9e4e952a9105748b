/**
 * How one simulator transport's radio reaches one device: the signal it hears the device with and
 * how long the device takes to answer over it. A device heard by two radios (the host's adapter
 * and a proxy, docs/architecture.md "Transports") has conditions per radio; tests make a radio
 * slow with them to hold transports to their budgets.
 */
export interface SimulatedRadio {
  /** Signal strength this radio hears the device with, dBm (default: what the device advertises). */
  rssi?: number;
  /** A connect takes this long before the link is up, ms (default 0). Past the connect timeout it fails. */
  connectDelayMs?: number;
  /** Each read and write takes this long before the device answers, ms (default 0); past the operation timeout it fails. */
  operationDelayMs?: number;
  /** The radio hears the device but cannot hold a link to it: connects fail with `connect_failed`. */
  linkFails?: boolean;
}

/**
 * Waits out the radio's delay, unless the budget ends first: true when the answer came within the
 * budget. One timer, whichever is shorter, so a stalled radio leaves nothing running behind.
 */
export function radioDelay(delayMs: number, budgetMs: number): Promise<boolean> {
  if (delayMs <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    setTimeout(
      () => {
        resolve(delayMs <= budgetMs);
      },
      Math.min(delayMs, budgetMs),
    );
  });
}
