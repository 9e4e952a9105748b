import type { WallClock } from '../protocol/ttlock-wall-clock.js';

/** One record of the simulated lock's operation log. `passcode` is what was typed (in clear, as a real lock keeps it). */
export interface TtlockLogEntry {
  number: number;
  type: number;
  time: WallClock;
  battery: number;
  uid?: number;
  recordId?: number;
  passcode?: string;
}

/**
 * The simulated lock's operation log: records numbered from the first number on (+1 each), at
 * most `capacity` kept (the oldest go), read by explicit sequence: {@link after} is what a read of
 * GET_OPERATE_LOG with that sequence answers (docs/ttlock.md "The operation log").
 */
export class TtlockLockLog {
  private readonly entries: TtlockLogEntry[] = [];
  private next: number;
  /** The highest number a central has read past: records after it are news (the advertisement's 0x02 bit). */
  private readUpTo: number;

  constructor(
    firstNumber = 1,
    private readonly capacity = 500,
  ) {
    this.next = firstNumber;
    this.readUpTo = firstNumber - 1;
  }

  append(entry: Omit<TtlockLogEntry, 'number'>): TtlockLogEntry {
    const record = { ...entry, number: this.next };
    this.next = (this.next % 0xffff) + 1;
    this.entries.push(record);
    if (this.entries.length > this.capacity) this.entries.shift();
    return record;
  }

  /** The first record numbered after `sequence`, or undefined past the newest. */
  after(sequence: number): TtlockLogEntry | undefined {
    const found = this.entries.find((entry) => entry.number > sequence);
    if (found === undefined) this.readUpTo = this.newest;
    return found;
  }

  /** Records nobody has read yet. */
  get unread(): boolean {
    return this.newest > this.readUpTo;
  }

  get newest(): number {
    return this.entries.at(-1)?.number ?? this.next - 1;
  }

  all(): TtlockLogEntry[] {
    return this.entries.map((entry) => ({ ...entry }));
  }
}
