import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { ensureBuild, PROJECT_ROOT } from './child-process.js';
import { HOMEBRIDGE_UI_THEME, homebridgeUiPublic, homebridgeUiStylesheet } from './homebridge-ui-theme.js';

/**
 * A stand-in for homebridge-config-ui-x around our custom settings page (the real UI does not run
 * in tests). Like the UI it forks the plugin's real
 * `homebridge-ui/server.js` with HOMEBRIDGE_STORAGE_PATH/HOMEBRIDGE_CONFIG_PATH, serves
 * `public/index.html` wrapped in a document that loads plugin-ui-utils' `ui.js` (with a CSP like
 * the UI's), answers the iframe's postMessage requests (`request`, `config.*`, `spinner.*`,
 * `schema.*`, `toast.*`) and forwards server.js's pushed events.
 */
export interface SettingsUiHost {
  /** The host page: the settings page in an iframe named "eKey Locks settings". */
  url: string;
  /** What server.js printed (its console output), for failure messages. */
  serverOutput(): string;
  close(): Promise<void>;
}

export interface SettingsUiHostOptions {
  storagePath: string;
  theme?: 'light' | 'dark';
  /** The plugin's config blocks, as `config.get` answers them. */
  config?: unknown[];
  /** Extra environment of server.js (e.g. DBUS_SYSTEM_BUS_ADDRESS of a fake BlueZ). */
  env?: Record<string, string>;
  /** Forward no request to server.js and answer none: a UI whose server.js hangs. */
  unanswered?: boolean;
  /**
   * Dress the page in the real Homebridge UI's theme (homebridge-ui-theme.ts) as the UI does: its
   * stylesheet, body classes and inline body colours, sent through ui.js's own messages.
   */
  homebridgeTheme?: boolean;
}

const HOST_DIR = join(PROJECT_ROOT, 'test', 'support', 'settings-ui-host');
const UI_JS = join(PROJECT_ROOT, 'node_modules', '@homebridge', 'plugin-ui-utils', 'dist', 'ui.js');
const CONTENT_TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
const UI_TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.svg': 'image/svg+xml', '.png': 'image/png' };

/** The CSP the Homebridge UI serves a custom page with (other origins' scripts blocked). */
const PLUGIN_CSP = "default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src *";

/**
 * The package as the UI sees it: the real homebridge-ui/ folder (copied byte for byte) next to
 * `dist` (the test build of src/, see ensureBuild), under node_modules/.cache so that server.js
 * resolves the project's dependencies.
 */
function stagePackage(): string {
  const root = join(PROJECT_ROOT, 'node_modules', '.cache', 'ekey-locks-settings-ui', randomUUID());
  mkdirSync(root, { recursive: true });
  symlinkSync(ensureBuild(), join(root, 'dist'), 'dir');
  cpSync(join(PROJECT_ROOT, 'homebridge-ui'), join(root, 'homebridge-ui'), { recursive: true });
  return root;
}

export async function startSettingsUiHost(options: SettingsUiHostOptions): Promise<SettingsUiHost> {
  const packageRoot = stagePackage();
  const uiPublic = options.homebridgeTheme === true ? homebridgeUiPublic() : undefined;
  const uiTheme = uiPublic === undefined ? '' : `/ui/${homebridgeUiStylesheet(uiPublic)}`;
  const publicDir = join(packageRoot, 'homebridge-ui', 'public');
  const config = options.config ?? [{ platform: 'EKeyLocks', name: 'eKey Locks' }];
  let output = '';
  const child: ChildProcess = fork(join(packageRoot, 'homebridge-ui', 'server.js'), [], {
    env: {
      ...process.env,
      HOMEBRIDGE_STORAGE_PATH: options.storagePath,
      HOMEBRIDGE_CONFIG_PATH: join(options.storagePath, 'config.json'),
      HOMEBRIDGE_UI_VERSION: '5.0.0-test',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const pending = new Map<string, (answer: { success: boolean; data: unknown }) => void>();
  const listeners = new Set<ServerResponse>();
  child.on('message', (message: { action?: string; payload?: { requestId?: string; success?: boolean; data?: unknown; event?: string } }) => {
    if (message.action === 'ready') markReady();
    if (message.action === 'response' && message.payload?.requestId !== undefined) {
      pending.get(message.payload.requestId)?.({ success: message.payload.success === true, data: message.payload.data });
      pending.delete(message.payload.requestId);
    }
    if (message.action === 'stream') {
      for (const listener of listeners) listener.write(`data: ${JSON.stringify({ event: message.payload?.event, data: message.payload?.data })}\n\n`);
    }
  });
  child.on('exit', () => {
    for (const answer of pending.values()) answer({ success: false, data: { message: 'server.js exited' } });
    pending.clear();
  });

  const readBody = async (request: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };

  const hostPage = (): string => `<!DOCTYPE html>
<html lang="en" data-theme="${options.theme ?? 'light'}" data-ui-stylesheet="${uiTheme}" data-ui-theme="${HOMEBRIDGE_UI_THEME}" data-config="${JSON.stringify(config).replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">
<head><meta charset="utf-8"><title>Homebridge UI (test host)</title><link rel="stylesheet" href="/host.css"></head>
<body class="${options.theme === 'dark' ? 'host-dark' : 'host-light'}">
<div id="host-spinner" role="progressbar" aria-label="Homebridge UI spinner" hidden>Loading…</div>
<iframe id="plugin-frame" title="eKey Locks settings" src="/plugin/index.html"></iframe>
<pre id="host-schema-form" aria-label="Config form (schema)" hidden></pre>
<div id="host-toasts" aria-label="Toasts"></div>
<script src="/host.js"></script>
</body></html>`;

  /** The page as the UI serves it: ui.js first, the body hidden until the UI sends `ready`. */
  const pluginPage = (): string => `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>homebridge-ekey-locks</title><meta name="viewport" content="width=device-width, initial-scale=1">
<script>window._homebridge = ${JSON.stringify({ plugin: { name: 'homebridge-ekey-locks', displayName: 'eKey Locks' }, serverEnv: {} })};</script>
<script src="/ui.js"></script></head>
<body style="display:none">
${readFileSync(join(publicDir, 'index.html'), 'utf8')}
</body></html>`;

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://host');
      /** Answers the request; true, so that a branch can `return send(…)`. */
      const send = (status: number, type: string, body: string, headers: Record<string, string> = {}): true => {
        response.writeHead(status, { 'content-type': type, ...headers });
        response.end(body);
        return true;
      };
      if (url.pathname === '/') return send(200, CONTENT_TYPES['.html'] ?? '', hostPage());
      if (url.pathname === '/host.js') return send(200, CONTENT_TYPES['.js'] ?? '', readFileSync(join(HOST_DIR, 'host.js'), 'utf8'));
      if (url.pathname === '/host.css') return send(200, CONTENT_TYPES['.css'] ?? '', readFileSync(join(HOST_DIR, 'host.css'), 'utf8'));
      if (url.pathname === '/ui.js') return send(200, CONTENT_TYPES['.js'] ?? '', readFileSync(UI_JS, 'utf8'));
      if (url.pathname === '/favicon.ico') return send(204, 'text/plain', '');
      if (uiPublic !== undefined && url.pathname.startsWith('/ui/')) {
        const file = normalize(decodeURIComponent(url.pathname.slice('/ui/'.length)));
        if (file.startsWith('..')) return send(404, 'text/plain', 'not found');
        try {
          const body = readFileSync(join(uiPublic, file));
          response.writeHead(200, { 'content-type': UI_TYPES[extname(file)] ?? 'application/octet-stream' });
          response.end(body);
          return true;
        } catch {
          return send(404, 'text/plain', 'not found');
        }
      }
      if (url.pathname === '/plugin/index.html') return send(200, CONTENT_TYPES['.html'] ?? '', pluginPage(), { 'content-security-policy': PLUGIN_CSP });
      if (url.pathname.startsWith('/plugin/')) {
        const file = normalize(url.pathname.slice('/plugin/'.length));
        if (file.startsWith('..')) return send(404, 'text/plain', 'not found');
        try {
          return send(200, CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', readFileSync(join(publicDir, file), 'utf8'), { 'content-security-policy': PLUGIN_CSP });
        } catch {
          return send(404, 'text/plain', 'not found');
        }
      }
      if (url.pathname === '/api/ready') {
        await ready;
        return send(200, 'application/json', '{}');
      }
      if (url.pathname === '/api/schema') return send(200, 'application/json', readFileSync(join(PROJECT_ROOT, 'config.schema.json'), 'utf8'));
      if (url.pathname === '/api/events') {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
        response.write(': open\n\n');
        listeners.add(response);
        request.on('close', () => {
          listeners.delete(response);
        });
        return true;
      }
      if (url.pathname === '/api/request' && request.method === 'POST' && options.unanswered === true) return true;
      if (url.pathname === '/api/request' && request.method === 'POST') {
        const { path, body } = JSON.parse(await readBody(request)) as { path: string; body: unknown };
        const requestId = randomUUID();
        const answer = await new Promise<{ success: boolean; data: unknown }>((resolve) => {
          pending.set(requestId, resolve);
          child.send({ action: 'request', requestId, path, body });
        });
        return send(200, 'application/json', JSON.stringify(answer));
      }
      return send(404, 'text/plain', 'not found');
    })().catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/`,
    serverOutput: () => output,
    close: async () => {
      for (const listener of listeners) listener.end();
      child.kill('SIGTERM');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
      rmSync(packageRoot, { recursive: true, force: true });
    },
  };
}
