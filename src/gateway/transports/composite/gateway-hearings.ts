/**
 * Addresses remembered per gateway. A gateway hears every device around it, and phones rotate
 * random addresses every few minutes, so each gateway forgets the device it heard from least
 * recently beyond this many.
 */
const MAX_HEARD_PER_GATEWAY = 512;

/** The latest advertisement one gateway heard from one address. */
export interface Hearing {
  /** Signal strength in dBm; null when the gateway does not say. */
  rssi: number | null;
  /** When it was heard, ms since the epoch (the composite's clock). */
  seenAt: number;
}

/** Which gateway heard which address, how strongly and when: the latest advertisement of each pair. */
export class GatewayHearings {
  private readonly byGateway = new Map<string, Map<string, Hearing>>();

  /** An advertisement from `address` (upper case) heard by `gateway`. */
  record(gateway: string, address: string, hearing: Hearing): void {
    let heard = this.byGateway.get(gateway);
    if (heard === undefined) {
      heard = new Map();
      this.byGateway.set(gateway, heard);
    }
    // Re-inserted, so the map's order is the order of last hearing and the first is the oldest.
    heard.delete(address);
    heard.set(address, hearing);
    if (heard.size > MAX_HEARD_PER_GATEWAY) {
      const oldest = heard.keys().next();
      if (oldest.done !== true) heard.delete(oldest.value);
    }
  }

  /** What `gateway` last heard from `address`, if anything. */
  latest(gateway: string, address: string): Hearing | undefined {
    return this.byGateway.get(gateway)?.get(address);
  }

  /** Every address `gateway` remembers, with its latest hearing. */
  heardBy(gateway: string): ReadonlyMap<string, Hearing> {
    return this.byGateway.get(gateway) ?? new Map();
  }
}
