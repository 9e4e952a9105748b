// The host side of the Homebridge UI's iframe contract (what homebridge-config-ui-x does for a
// plugin's custom settings page), for test/e2e/settings-ui-page.test.ts. Served by
// test/support/settings-ui-host.ts; it forwards the page's requests to the forked server.js.
(() => {
  'use strict';
  const frame = document.getElementById('plugin-frame');
  const spinner = document.getElementById('host-spinner');
  const schemaForm = document.getElementById('host-schema-form');
  const toasts = document.getElementById('host-toasts');
  const theme = document.documentElement.dataset.theme;
  const state = { config: JSON.parse(document.documentElement.dataset.config), messages: [] };
  window.hostState = state;

  const post = (message) => frame.contentWindow.postMessage(message, window.location.origin);
  const respond = (request, success, data) => post({ action: 'response', requestId: request.requestId, success, data });

  const uiStylesheet = document.documentElement.dataset.uiStylesheet;
  const uiTheme = document.documentElement.dataset.uiTheme;

  frame.addEventListener('load', async () => {
    if (uiStylesheet) {
      // What homebridge-config-ui-x 5.10 sends a plugin's page (injectDefaultStyles): its theme class,
      // the modal's class, dark mode, its stylesheets and the body colours it forces.
      post({ action: 'body-class', class: `config-ui-x-${theme === 'dark' ? 'dark-mode-' : ''}${uiTheme}` });
      post({ action: 'body-class', class: 'modal-content' });
      if (theme === 'dark') post({ action: 'body-class', class: 'dark-mode' });
      post({ action: 'link-element', href: `${window.location.origin}${uiStylesheet}`, rel: 'stylesheet' });
      const dark = theme === 'dark';
      post({
        action: 'inline-style',
        style: `body { height: unset !important; background-color: ${dark ? '#242424' : '#FFFFFF'} !important; color: ${dark ? '#FFFFFF' : '#000000'} !important; }`,
      });
    } else if (theme === 'dark') post({ action: 'body-class', class: 'dark-mode' });
    // The UI shows the page once server.js said it is ready.
    await fetch('/api/ready');
    post({ action: 'ready' });
  });

  window.addEventListener('message', async (event) => {
    if (event.source !== frame.contentWindow || event.origin !== window.location.origin) return;
    const message = event.data;
    state.messages.push(message.action);
    switch (message.action) {
      case 'request': {
        const answer = await fetch('/api/request', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ path: message.path, body: message.body }),
        }).then((response) => response.json());
        respond(message, answer.success, answer.data);
        break;
      }
      case 'config.get':
        respond(message, true, state.config);
        break;
      case 'config.update':
        state.config = message.pluginConfig;
        schemaForm.textContent = JSON.stringify(state.config, null, 2);
        respond(message, true, state.config);
        break;
      case 'config.schema':
        respond(message, true, await fetch('/api/schema').then((response) => response.json()));
        break;
      case 'spinner.show':
        spinner.hidden = false;
        break;
      case 'spinner.hide':
        spinner.hidden = true;
        break;
      case 'schema.show':
        schemaForm.hidden = false;
        schemaForm.textContent = JSON.stringify(state.config, null, 2);
        break;
      case 'schema.hide':
        schemaForm.hidden = true;
        break;
      case 'scrollHeight':
        frame.style.height = `${message.scrollHeight + 4}px`;
        break;
      default:
        if (typeof message.action === 'string' && message.action.startsWith('toast.')) {
          const toast = document.createElement('p');
          toast.dataset.kind = message.action.slice('toast.'.length);
          toast.textContent = `${message.title ?? ''} ${message.message}`.trim();
          toasts.append(toast);
        }
    }
  });

  const events = new EventSource('/api/events');
  events.addEventListener('message', (event) => {
    const pushed = JSON.parse(event.data);
    post({ action: 'stream', event: pushed.event, data: pushed.data });
  });
})();
