// The eKey Locks settings page's server: the Homebridge UI forks this file (it must be called
// server.js). Everything it does is compiled from src/settings-ui/ (docs/architecture.md
// "The settings page"). Should that code fail to load, every request still ends with a message:
// a server.js that never calls ready() leaves the user on an endless spinner.
import { HomebridgePluginUiServer, RequestError } from '@homebridge/plugin-ui-utils';

try {
  const { EKeyLocksSettingsUiServer } = await import('../dist/settings-ui/settings-ui-server.js');
  new EKeyLocksSettingsUiServer();
} catch (error) {
  const message = `The settings page could not start (${error instanceof Error ? error.message : String(error)}). Reinstall the plugin.`;
  class BrokenSettingsUiServer extends HomebridgePluginUiServer {
    constructor() {
      super();
      this.onRequest('/status', () => ({ state: 'unreadable', message }));
      this.onRequest('/pairing', () => ({ families: [] }));
      this.onRequest('/form', () => ({ listFields: [] }));
      for (const path of ['/owner', '/scan', '/pair', '/mqtt-test']) {
        this.onRequest(path, () => {
          throw new RequestError(message, { reason: 'unavailable' });
        });
      }
      this.ready();
    }
  }
  new BrokenSettingsUiServer();
}
