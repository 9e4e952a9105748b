import type { Logger } from '../logger.js';
import { PLATFORM_NAME, PLUGIN_NAME } from '../homebridge/platform-name.js';
import { matterAvailability, type MatterCapableApi } from './matter-availability.js';
import { MatterLocks, type MatterLocksOptions } from './matter-locks.js';

/**
 * The platform's Matter side, or undefined when Homebridge runs no Matter for this bridge
 * (Homebridge 1, or Matter not enabled): then nothing about Matter happens and nothing errs.
 * With the platform option `matter: false` on a Matter bridge, the adapter still exists, to
 * remove the door locks an earlier run registered.
 */
export function openMatterLocks(
  api: MatterCapableApi,
  config: object | undefined,
  logger: Logger,
  options: MatterLocksOptions = {},
): MatterLocks | undefined {
  const availability = matterAvailability(api);
  if (availability.matter === undefined) {
    logger.debug(`Matter: locks are not shown in Matter: ${availability.reason}.`);
    return undefined;
  }
  const enabled = (config as { matter?: unknown } | undefined)?.matter !== false;
  logger.info(enabled ? 'Matter: every lock is also shown as a Matter door lock.' : 'Matter: turned off by the platform option "matter": false.');
  return new MatterLocks(availability.matter, logger, PLUGIN_NAME, PLATFORM_NAME, enabled, options);
}
