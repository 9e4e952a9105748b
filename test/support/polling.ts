/**
 * The tests' one set of polling helpers: wait for something that happens on its own (a
 * connection, a stored row, a finished command) within a budget, never a fixed sleep. A budget is
 * a bound for it to happen at all on a loaded machine, not a speed claim.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect } from '@jest/globals';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface PollOptions {
  /** How long to keep trying (default 10 s). */
  timeoutMs?: number;
  /** The pause between two tries (default 5 ms). */
  everyMs?: number;
}

/** Resolves once `condition` holds; throws "timed out waiting for <what>" past the budget. */
export async function until(condition: () => boolean, what: string | (() => string) = 'the condition', timeoutMs = 10_000, everyMs = 5): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await pause(everyMs);
  }
}

/**
 * Reads until `accept` holds for the value read or the budget is spent, and resolves with the last
 * value read either way: the caller asserts on it, so a timeout shows what was there instead.
 */
export async function readUntil<T>(read: () => Promise<T> | T, accept: (value: T) => boolean, options: PollOptions = {}): Promise<T> {
  const { timeoutMs = 10_000, everyMs = 5 } = options;
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!accept(value) && Date.now() <= deadline) {
    await pause(everyMs);
    value = await read();
  }
  return value;
}

/** A command's final states (the spec's LockCommand status). */
export const isFinishedCommand = (command: Record<string, unknown>): boolean => command.status === 'completed' || command.status === 'failed';

/**
 * Polls a command (`read` is one GET of /locks/{lock_id}/commands/{command_id}, answering its body)
 * until it is completed or failed, and answers that body; throws when it is still unfinished past
 * the budget. `between` replaces the pause between reads (for example the engine's `idle()`).
 */
export async function untilCommandFinished(
  read: () => Promise<Record<string, unknown>>,
  options: PollOptions & { between?: () => Promise<void> } = {},
): Promise<Record<string, unknown>> {
  const { timeoutMs = 10_000, everyMs = 20, between = () => pause(everyMs) } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const command = await read();
    if (isFinishedCommand(command)) return command;
    if (Date.now() > deadline) throw new Error(`command still ${String(command.status)} after ${timeoutMs} ms`);
    await between();
  }
}

/** Reads (every 100 ms) until the value equals `expected`, then asserts it: a timeout shows the last value read. */
export async function eventually<T>(read: () => Promise<T> | T, expected: T, timeoutMs = 10_000): Promise<void> {
  expect(await readUntil(read, (value) => isDeepStrictEqual(value, expected), { timeoutMs, everyMs: 100 })).toEqual(expected);
}
