/**
 * Reaching the app from outside the home (docs/design.md §7, docs/remote-access.md): the service
 * behind Caddy (Debian's package) with TLS from Caddy's internal CA, `api.public_url` set to the
 * proxy's https address and `api.trusted_proxies` naming the proxy. Everything runs in a private
 * network namespace, where Caddy may take port 443. Then, without a proxy: X-Forwarded-* from a
 * peer that is not a trusted proxy is ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEB_APP_CLIENT_ID } from '../../../src/auth/web-app-client.js';
import { builtCli, PROJECT_ROOT, spawnNode, type RunningChild } from '../../support/child-process.js';
import { Namespace } from '../../support/private-network.js';
import { startTestService, type TestService } from '../../support/test-service.js';

const LAN_CLIENT = join(PROJECT_ROOT, 'test', 'support', 'lan-client.mjs');
const PUBLIC = 'https://locks.home.test';

const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
/** The web app's sign-in, with its redirect on the address the browser used. */
const webAppSignIn = (origin: string): string =>
  `/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: WEB_APP_CLIENT_ID,
    redirect_uri: `${origin}/app/callback`,
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString()}`;

describe('behind Caddy with TLS (its internal CA)', () => {
  let dir: string;
  let namespace: Namespace;
  const children: RunningChild[] = [];
  let caddyStop: (() => void) | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ekey-proxy-'));
    namespace = await Namespace.create();
  });
  afterAll(() => {
    for (const child of children) child.kill();
    caddyStop?.();
    namespace.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function client(...args: string[]): Promise<Record<string, unknown>> {
    const child = spawnNode(LAN_CLIENT, args, {
      wrapper: namespace.wrapper,
      env: { EKEY_RESOLVE: 'locks.home.test=127.0.0.1', NODE_EXTRA_CA_CERTS: join(dir, 'xdg-data', 'caddy', 'pki', 'authorities', 'local', 'root.crt') },
    });
    children.push(child);
    return JSON.parse(await child.nextLine(undefined, 20_000)) as Record<string, unknown>;
  }

  it('signs in, sends keys and mails links on the public https address', async () => {
    const data = join(dir, 'data');
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ platform: 'EKeyLocks', demo: true, api: { host: '127.0.0.1', port: 8787, public_url: PUBLIC, trusted_proxies: ['127.0.0.1'] } }),
    );
    const serve = spawnNode(builtCli(), ['serve', '--config', config, '--data', data], { wrapper: namespace.wrapper });
    children.push(serve);
    await serve.stderrMatch(/Web app: /, 30_000);
    expect(serve.stderr()).toContain(`eKey access service listening on ${PUBLIC} (on this machine also http://127.0.0.1:8787)`);

    // The Caddyfile of docs/remote-access.md, with a test name and Caddy's own folders in `dir`.
    const caddyfile = join(dir, 'Caddyfile');
    writeFileSync(
      caddyfile,
      '{\n\tadmin off\n\tskip_install_trust\n\tauto_https disable_redirects\n}\n\nlocks.home.test {\n\ttls internal\n\treverse_proxy 127.0.0.1:8787\n}\n',
    );
    const caddy = spawn(namespace.wrapper[0] ?? 'nsenter', [...namespace.wrapper.slice(1), 'caddy', 'run', '--adapter', 'caddyfile', '--config', caddyfile], {
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    caddyStop = () => caddy.kill('SIGKILL');
    let caddyLog = '';
    await new Promise<void>((resolve, reject) => {
      caddy.stderr.on('data', (chunk: Buffer) => {
        caddyLog += chunk.toString();
        if (caddyLog.includes('serving initial configuration')) resolve();
      });
      caddy.on('exit', (code) => {
        reject(new Error(`caddy exited (${String(code)}):\n${caddyLog}`));
      });
    });
    expect(existsSync(join(dir, 'xdg-data', 'caddy', 'pki', 'authorities', 'local', 'root.crt'))).toBe(true);

    // TLS verifies against Caddy's CA; the app's pages answer through the proxy.
    expect(await client('get', `${PUBLIC}/robots.txt`)).toMatchObject({ status: 200, body: 'User-agent: *\nDisallow: /\n' });
    // The web app's redirect is on the https origin: the service believes the proxy's X-Forwarded-Proto.
    expect(await client('get', `${PUBLIC}${webAppSignIn(PUBLIC)}`)).toMatchObject({ status: 200 });

    const demo = JSON.parse(readFileSync(join(data, 'demo.json'), 'utf8')) as {
      base_url: string;
      clients: { client_id: string; client_secret: string; redirect_uri: string }[];
      users: { email: string; password: string }[];
      locks: { id: string; name: string }[];
    };
    expect(demo.base_url).toBe(PUBLIC);
    const owner = demo.users[0];
    const frontDoor = demo.locks.find((lock) => lock.name === 'Front Door');
    if (!owner || !frontDoor) throw new Error('demo household incomplete');
    const sent = await client(
      'send-ekey',
      JSON.stringify({ base_url: PUBLIC, client: demo.clients[0], email: owner.email, password: owner.password, lock_id: frontDoor.id, to: 'far.away@example.org' }),
    );
    expect(sent).toMatchObject({ status: 201, body: { status: 'pending' } });
    const [, link = ''] = await serve.stderrMatch(/(https:\/\/\S+\/invitations\/[A-Za-z0-9_-]+)/);
    expect(link.startsWith(`${PUBLIC}/invitations/`)).toBe(true);
    expect(await client('get', link)).toMatchObject({ status: 200 });
  }, 120_000);
});

describe('X-Forwarded-* from a peer that is not a trusted proxy', () => {
  let test: TestService;
  let port: number;
  beforeAll(async () => {
    test = await startTestService({ config: { api: { public_url: PUBLIC, trusted_proxies: ['127.0.0.1'] } } });
    port = (test.service.http?.server.address() as AddressInfo).port;
  }, 60_000);
  afterAll(async () => {
    await test.close();
  });

  /** GET from `localAddress` (every 127/8 address is loopback) with forwarded headers claiming https. */
  const forwardedFrom = (localAddress: string, path: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port,
          path,
          localAddress,
          headers: { host: 'locks.home.test', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'locks.home.test', accept: 'text/html' },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });

  it('is believed from the trusted proxy and ignored from anyone else', async () => {
    // From 127.0.0.1 (trusted): the request is on https://locks.home.test, the redirect matches.
    expect(await forwardedFrom('127.0.0.1', webAppSignIn(PUBLIC))).toBe(200);
    // From 127.0.0.3: the headers are ignored — the request is plain http, so an https redirect is refused.
    expect(await forwardedFrom('127.0.0.3', webAppSignIn(PUBLIC))).toBe(400);
    expect(await forwardedFrom('127.0.0.3', webAppSignIn('http://locks.home.test'))).toBe(200);
  });
});
