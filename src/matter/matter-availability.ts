import type { API, MatterAPI } from 'homebridge';
import { describeError } from '../domain/errors.js';

/**
 * The part of Homebridge's API that says whether Matter runs for this bridge. Homebridge 1 has
 * none of it (every member is then undefined); Homebridge 2 has the methods, and `matter` is
 * defined on a bridge with a `matter` block in its config.
 */
export type MatterCapableApi = Partial<Pick<API, 'isMatterAvailable' | 'isMatterEnabled' | 'matter'>>;

/** Whether the Matter side runs, and why not when it does not (for one log line). */
export type MatterAvailability = { matter: MatterAPI } | { matter: undefined; reason: string };

/**
 * Decides whether locks are shown in Matter (docs/design.md §5b): Homebridge must offer Matter
 * (`isMatterAvailable()`, Homebridge 2), the bridge that runs this platform must have it enabled
 * (`isMatterEnabled()`), and `api.matter` must be there. Never throws: an API without these
 * methods (Homebridge 1) or one whose methods fail simply means "no Matter".
 */
export function matterAvailability(api: MatterCapableApi): MatterAvailability {
  try {
    if (typeof api.isMatterAvailable !== 'function' || !api.isMatterAvailable()) {
      return { matter: undefined, reason: 'this Homebridge has no Matter support (Homebridge 2 adds it)' };
    }
    if (typeof api.isMatterEnabled !== 'function' || !api.isMatterEnabled()) {
      return { matter: undefined, reason: 'Matter is not enabled for the bridge that runs this platform (docs/matter.md)' };
    }
    const matter = api.matter;
    if (matter === undefined) return { matter: undefined, reason: 'Homebridge reports Matter enabled but offers no Matter API' };
    return { matter };
  } catch (error) {
    return { matter: undefined, reason: `Homebridge's Matter check failed: ${describeError(error)}` };
  }
}
