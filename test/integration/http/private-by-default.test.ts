/**
 * A private service (docs/design.md §7): every page says `noindex` (the header on every answer, the
 * meta tag in every HTML page) and `/robots.txt` disallows everything — it may face the internet
 * behind a proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestService, type TestService } from '../../support/test-service.js';
import { WEB_APP_CLIENT_ID } from '../../../src/auth/web-app-client.js';

let test: TestService;
beforeAll(async () => {
  test = await startTestService();
}, 60_000);
afterAll(async () => {
  await test.close();
});

describe('private by default', () => {
  it('/robots.txt disallows everything', async () => {
    const robots = await fetch(`${test.baseUrl}/robots.txt`);
    expect(robots.status).toBe(200);
    expect(robots.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await robots.text()).toBe('User-agent: *\nDisallow: /\n');
  });

  it('every answer says noindex, every HTML page too', async () => {
    const client = test.demo.clients[0];
    if (!client) throw new Error('no demo client');
    const signIn = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uri, state: 's' });
    const pages = [
      '/app/',
      `/oauth/authorize?${signIn.toString()}`,
      '/oauth/authorize?client_id=unknown',
      `/invitations/${'x'.repeat(43)}`,
    ];
    for (const path of pages) {
      const answer = await fetch(`${test.baseUrl}${path}`, { headers: { accept: 'text/html' } });
      expect({ path, robots: answer.headers.get('x-robots-tag'), type: answer.headers.get('content-type') }).toEqual({
        path,
        robots: 'noindex, nofollow',
        type: expect.stringMatching(/^text\/html/) as unknown,
      });
      expect({ path, meta: /<meta name="robots" content="noindex, nofollow">/.test(await answer.text()) }).toEqual({ path, meta: true });
    }
    for (const path of ['/', '/me', '/openapi.json', '/no-such-route', '/favicon.ico', `/oauth/authorize?client_id=${WEB_APP_CLIENT_ID}`]) {
      const answer = await fetch(`${test.baseUrl}${path}`, { redirect: 'manual' });
      expect({ path, robots: answer.headers.get('x-robots-tag') }).toEqual({ path, robots: 'noindex, nofollow' });
    }
  });
});
