/**
 * The one clock abstraction: everything that depends on time takes a Clock, so tests can move
 * time forward instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The wall clock of the host. */
export const systemClock: Clock = { now: () => Date.now() };
