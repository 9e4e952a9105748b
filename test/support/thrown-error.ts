/**
 * The error of class `type` that `work` throws, for assertions on its status or code; fails the
 * test when `work` throws nothing, and rethrows an error of another class.
 */
export function thrownError<E extends Error>(type: abstract new (...args: never[]) => E, work: () => unknown): E {
  try {
    work();
  } catch (error) {
    if (error instanceof type) return error;
    throw error;
  }
  throw new Error(`expected a ${type.name}`);
}
