import type { NukiIdType } from '../protocol/nuki-commands.js';

/** What kind of client an authorization belongs to (§5 "ID Type"). */
export type NukiAuthorizationType = keyof typeof NukiIdType;

/** One authorization a simulated Nuki holds. */
export interface NukiAuthorization {
  /** Authorization-ID, u32, unique on this lock. */
  id: number;
  /** Shown in the lock's authorization list and log; at most 32 bytes of UTF-8 on the wire. */
  name: string;
  type: NukiAuthorizationType;
  /**
   * The key its USDIO frames are encrypted with; null for an authorization that only exists for
   * `tap()` and the log (its frames can never be read: K_ERROR_NOT_AUTHORIZED).
   */
  sharedKey: Buffer | null;
  /** App-ID/Bridge-ID/Fob-ID from pairing (0 for pre-paired entries). */
  appId: number;
}

/** The lock's list of authorizations, bounded by `capacity` (P_ERROR_MAX_USER beyond it). */
export class NukiAuthorizationTable {
  private readonly entries = new Map<number, NukiAuthorization>();

  constructor(
    readonly capacity: number,
    initial: readonly NukiAuthorization[],
  ) {
    for (const entry of initial) {
      if (!Number.isInteger(entry.id) || entry.id < 1 || entry.id > 0xffffffff) throw new RangeError(`authorization id ${entry.id} is not a u32 above 0`);
      if (this.entries.has(entry.id)) throw new RangeError(`authorization id ${entry.id} is given twice`);
      if (entry.sharedKey !== null && entry.sharedKey.length !== 32) throw new RangeError(`the shared key of authorization ${entry.id} must have 32 bytes`);
      this.entries.set(entry.id, { ...entry, sharedKey: entry.sharedKey === null ? null : Buffer.from(entry.sharedKey) });
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get full(): boolean {
    return this.entries.size >= this.capacity;
  }

  /** Entries in id order, without their keys. */
  list(): readonly Omit<NukiAuthorization, 'sharedKey'>[] {
    return [...this.entries.values()].sort((a, b) => a.id - b.id).map(({ id, name, type, appId }) => ({ id, name, type, appId }));
  }

  byId(id: number): NukiAuthorization | undefined {
    return this.entries.get(id);
  }

  /** The first authorization (lowest id) with exactly this name. */
  byName(name: string): NukiAuthorization | undefined {
    return [...this.entries.values()].sort((a, b) => a.id - b.id).find((entry) => entry.name === name);
  }

  /** The first authorization (lowest id) of this type. */
  firstOfType(type: NukiAuthorizationType): NukiAuthorization | undefined {
    return [...this.entries.values()].sort((a, b) => a.id - b.id).find((entry) => entry.type === type);
  }

  /** The id a new authorization gets: one above the highest held. */
  nextId(): number {
    return Math.max(0, ...this.entries.keys()) + 1;
  }

  add(entry: NukiAuthorization): void {
    this.entries.set(entry.id, entry);
  }
}
