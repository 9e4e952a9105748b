import { HomebridgePluginUiServer, RequestError } from '@homebridge/plugin-ui-utils';
import { SettingsUiError, SettingsUiHandlers } from './settings-ui-handlers.js';
import { describeError } from '../domain/errors.js';
import { testMqttConnection } from '../mqtt/mqtt-connection-test.js';

/** The event that carries each progress line of a scan or pairing to the page (`{ family, line }`). */
export const PAIRING_PROGRESS_EVENT = 'pairing-progress';

/**
 * The settings page's server (homebridge-ui/server.js starts it): a child process of the
 * Homebridge UI. Every request ends: an answer, or a RequestError whose message the page shows.
 */
export class EKeyLocksSettingsUiServer extends HomebridgePluginUiServer {
  constructor() {
    super();
    const handlers = new SettingsUiHandlers({
      storagePath: this.homebridgeStoragePath,
      progress: (line, family) => {
        this.pushEvent(PAIRING_PROGRESS_EVENT, { family, line });
      },
    });
    this.onRequest('/status', () => handlers.status());
    this.onRequest('/owner', (body) => answering(() => handlers.createOwner(body)));
    this.onRequest('/pairing', () => handlers.pairingFamilies());
    this.onRequest('/form', () => handlers.formShapes());
    this.onRequest('/scan', (body) => answering(() => handlers.scan(body)));
    this.onRequest('/pair', (body) => answering(() => handlers.pair(body)));
    // docs/home-assistant.md: the MQTT section as the form holds it, tried without saving it.
    this.onRequest('/mqtt-test', (body) => answering(() => testMqttConnection((body as { mqtt?: unknown } | undefined)?.mqtt)));
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
