/**
 * Finding 7 of the security review (docs/design.md §9b): pages and OAuth redirects of the web app are
 * built only from allowed hosts; a request naming another Host (a DNS-rebinding page, a proxy that
 * is not configured) gets 421 — a plain page where a browser asked for one, problem+json otherwise.
 * Failed before the change: the sign-in page was served for `evil.example` and its form answered
 * 302 to `http://evil.example:<port>/app/callback?code=…`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { createHash, randomBytes } from 'node:crypto';
import { WEB_APP_CLIENT_ID } from '../../../src/auth/web-app-client.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { loginOverHttp } from '../../support/oauth-login.js';
import type { AddressInfo } from 'node:net';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with a chosen Host header (fetch does not let a caller set it). */
function send(baseUrl: string, options: { method?: string; path: string; host: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: url.hostname, port: url.port, method: options.method ?? 'GET', path: options.path, headers: { ...options.headers, host: options.host } },
      (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

let test: TestService;
let port: string;
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

beforeAll(async () => {
  test = await startTestService({ config: { api: { public_url: 'https://locks.example.org/', allowed_hosts: ['home.example.lan', '*.example.net'] } } });
  port = String((test.service.http?.server.address() as AddressInfo).port);
}, 60_000);
afterAll(async () => {
  await test.close();
});

const local = (): string => `http://127.0.0.1:${port}`;
const authorizeQuery = (host: string): string =>
  new URLSearchParams({
    response_type: 'code',
    client_id: WEB_APP_CLIENT_ID,
    redirect_uri: `http://${host}/app/callback`,
    state: 'rebinding',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();

describe('a Host that is not ours', () => {
  it('gets no sign-in page: 421, a plain HTML page', async () => {
    const host = `evil.example:${port}`;
    const answer = await send(local(), { path: `/oauth/authorize?${authorizeQuery(host)}`, host, headers: { accept: 'text/html' } });
    expect(answer.status).toBe(421);
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.body).toContain('does not answer to that host name');
    expect(answer.body).not.toContain('evil.example');
  });

  it('gets no code: the sign-in form answers 421, not a redirect to that host', async () => {
    const host = `evil.example:${port}`;
    const owner = test.demo.users[0];
    if (!owner) throw new Error('no demo owner');
    const form = `${authorizeQuery(host)}&${new URLSearchParams({ email: owner.email, password: owner.password }).toString()}`;
    const answer = await send(local(), {
      method: 'POST',
      path: '/oauth/authorize',
      host,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: form,
    });
    expect(answer.status).toBe(421);
    expect(answer.headers.location).toBeUndefined();
  });

  it('gets 421 problem+json from the API, and from the web app a page', async () => {
    const client = test.demo.clients[0];
    const owner = test.demo.users[0];
    if (!client || !owner) throw new Error('demo household incomplete');
    const tokens = await loginOverHttp({ baseUrl: local(), client, email: owner.email, password: owner.password });
    const api = await send(local(), { path: '/me', host: 'rebound.attacker.test', headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } });
    expect(api.status).toBe(421);
    expect(api.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(api.body)).toMatchObject({ status: 421, code: 'misdirected_request' });
    const app = await send(local(), { path: '/app/', host: 'rebound.attacker.test' });
    expect(app.status).toBe(421);
    expect(app.headers['content-type']).toMatch(/^text\/html/);
    const root = await send(local(), { path: '/', host: 'rebound.attacker.test' });
    expect(root).toMatchObject({ status: 421 });
    expect(root.headers.location).toBeUndefined();
  });
});

describe('the hosts that are ours', () => {
  const ownAddresses = Object.values(networkInterfaces())
    .flatMap((infos) => infos ?? [])
    .map((info) => (info.family === 'IPv6' ? `[${info.address.replace(/%.*$/, '')}]` : info.address));

  it.each([
    ['loopback', () => `127.0.0.1:${port}`],
    ['localhost', () => `localhost:${port}`],
    ['IPv6 loopback', () => `[::1]:${port}`],
    ['the public URL', () => 'locks.example.org'],
    ['api.allowed_hosts', () => `HOME.example.lan:${port}`],
    ['a name under an allowed *.domain', () => 'door.example.net'],
  ])('%s: the sign-in page', async (_name, host) => {
    const answer = await send(local(), { path: `/oauth/authorize?${authorizeQuery(host())}`, host: host(), headers: { accept: 'text/html' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('<form');
  });

  it("this host's own addresses", async () => {
    expect(ownAddresses.length).toBeGreaterThan(0);
    for (const address of ownAddresses) {
      const host = `${address}:${port}`;
      const answer = await send(local(), { path: `/oauth/authorize?${authorizeQuery(host)}`, host, headers: { accept: 'text/html' } });
      expect({ address, status: answer.status }).toEqual({ address, status: 200 });
    }
  });
});
