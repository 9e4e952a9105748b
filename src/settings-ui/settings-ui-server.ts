import { HomebridgePluginUiServer, RequestError } from '@homebridge/plugin-ui-utils';
import { SettingsUiError, SettingsUiHandlers } from './settings-ui-handlers.js';
import { describeError } from '../domain/errors.js';

/** The event that carries each progress line of a Nuki scan or pairing to the page. */
export const NUKI_PROGRESS_EVENT = 'nuki-progress';

/**
 * The settings page's server (homebridge-ui/server.js starts it): a child process of the
 * Homebridge UI. Every request ends: an answer, or a RequestError whose message the page shows.
 */
export class EKeyLocksSettingsUiServer extends HomebridgePluginUiServer {
  constructor() {
    super();
    const handlers = new SettingsUiHandlers({
      storagePath: this.homebridgeStoragePath,
      progress: (line) => {
        this.pushEvent(NUKI_PROGRESS_EVENT, { line });
      },
    });
    this.onRequest('/status', () => handlers.status());
    this.onRequest('/owner', (body) => answering(() => handlers.createOwner(body)));
    this.onRequest('/nuki/scan', (body) => answering(() => handlers.nukiScan(body)));
    this.onRequest('/nuki/pair', (body) => answering(() => handlers.nukiPair(body)));
    this.ready();
  }
}

/** A SettingsUiError becomes a RequestError (its message shown as is); anything else a generic sentence. */
async function answering<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SettingsUiError) throw new RequestError(error.message, { reason: 'settings_ui' });
    throw new RequestError(`Something went wrong on the Homebridge host: ${describeError(error)}`, { reason: 'unexpected' });
  }
}
