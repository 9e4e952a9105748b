/** The logger the gateway writes to (Homebridge's logger fits; so does a console adapter). */
export interface GatewayLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger that drops everything, for tests and benches. */
export const silentLogger: GatewayLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
