/**
 * The logging surface every layer uses. Homebridge's `Logging` satisfies it, so inside
 * Homebridge our messages go to its log; standalone they go to stderr.
 * Never pass a token, password, secret or lock key to a logger.
 */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Writes to stderr with a level prefix; `debug` only when `EKEY_DEBUG` is set. */
export const consoleLogger: Logger = {
  debug: (message) => {
    if (process.env.EKEY_DEBUG) process.stderr.write(`[debug] ${message}\n`);
  },
  info: (message) => process.stderr.write(`[info] ${message}\n`),
  warn: (message) => process.stderr.write(`[warn] ${message}\n`),
  error: (message) => process.stderr.write(`[error] ${message}\n`),
};

/** Discards everything (tests that assert on logs use test/support/recording-logger.ts). */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
