/**
 * Issue #32, finding 9 (docs/remote-access.md): behind a trusted reverse proxy, a client's address
 * is the rightmost `X-Forwarded-For` entry that is not a trusted proxy — what a client writes to
 * the left of it never moves it to another per-address bucket — and a trusted range (a home
 * network) is named in a warning at start. Real HTTP on loopback: the "proxy" is 127.0.0.1, a
 * peer that is not one is 127.0.0.3 (every 127/8 address is loopback); the per-address limit of
 * the OAuth routes is set to 3 a minute, so a 429 shows which bucket a request counted in.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { startTestService, type TestService } from '../../support/test-service.js';

describe('X-Forwarded-For from a trusted proxy (finding 9)', () => {
  let test: TestService;

  /** GET of a rate-limited OAuth page from `localAddress` with `forwardedFor`: the status. */
  const from = (localAddress: string, forwardedFor: string | undefined): Promise<number> =>
    new Promise((resolve, reject) => {
      const url = new URL('/oauth/authorize?response_type=code', test.baseUrl);
      const outgoing = request(
        { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, localAddress, headers: { accept: 'text/html', ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) } },
        (answer) => {
          answer.resume();
          answer.on('end', () => {
            resolve(answer.statusCode ?? 0);
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });

  beforeAll(async () => {
    test = await startTestService({ config: { api: { trusted_proxies: ['127.0.0.1'], oauth_rate_limit_per_minute: 3 } } });
  });

  afterAll(async () => {
    await test.close();
  });

  it('counts a client behind the proxy by the rightmost untrusted address, whatever it writes to its left', async () => {
    // The proxy appends the address it saw; the client prepended one of its own choosing each time.
    const statuses: number[] = [];
    for (const spoofed of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4']) statuses.push(await from('127.0.0.1', `${spoofed}, 203.0.113.7`));
    expect(statuses).toEqual([400, 400, 400, 429]);
    // Another client behind the same proxy has its own bucket.
    expect(await from('127.0.0.1', '203.0.113.8')).toBe(400);
    // A peer that is not a trusted proxy is counted by its own address; its header is not believed.
    expect(await from('127.0.0.3', '203.0.113.9')).toBe(400);
    expect(await from('127.0.0.3', '203.0.113.10')).toBe(400);
    expect(await from('127.0.0.3', '203.0.113.11')).toBe(400);
    expect(await from('127.0.0.3', '203.0.113.12')).toBe(429);
  });

  it('warns at start about a trusted range (every device in it could pose as any address), not about one address', async () => {
    expect(test.logger.lines.some((line) => line.message.includes('trusted_proxies'))).toBe(false);
    const lan = await startTestService({ config: { api: { trusted_proxies: ['127.0.0.1', '192.168.1.0/24', '::1/128'] } } });
    try {
      const warnings = lan.logger.lines.filter((line) => line.level === 'warn' && line.message.includes('trusted_proxies'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toContain('192.168.1.0/24');
      expect(warnings[0]?.message).not.toContain('127.0.0.1');
      expect(warnings[0]?.message).not.toContain('::1/128');
    } finally {
      await lan.close();
    }
  });
});
