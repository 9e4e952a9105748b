import { consoleLogger } from '../logger.js';
import { describeError } from '../domain/errors.js';

/** Stops cleanly on SIGTERM/SIGINT: finish in-flight work, close the store, exit 0. */
export function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    consoleLogger.info(`${signal}: stopping`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        consoleLogger.error(`error while stopping: ${describeError(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
