import { describe, expect, it } from '@jest/globals';
import fastifyHelmet from '@fastify/helmet';
import Fastify from 'fastify';
import { SECURITY_HEADERS } from '../../../src/api/server.js';

/** The response headers of a bare Fastify app with @fastify/helmet, minus Fastify's own. */
async function helmetHeaders(): Promise<Record<string, unknown>> {
  const app = Fastify({ logger: false });
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'none'"],
        'style-src': ["'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
        'frame-ancestors': ["'none'"],
        'base-uri': ["'none'"],
      },
    },
    hsts: false,
  });
  app.get('/', () => ({}));
  const response = await app.inject({ url: '/' });
  await app.close();
  const { 'content-type': _type, 'content-length': _length, date: _date, connection: _connection, ...headers } = response.headers;
  return headers;
}

describe('SECURITY_HEADERS', () => {
  it('are exactly what helmet sends for the API configuration', async () => {
    expect({ ...SECURITY_HEADERS }).toEqual(await helmetHeaders());
  });

  it('forbid framing, sniffing and any active content', () => {
    expect(SECURITY_HEADERS['x-frame-options']).toBe('SAMEORIGIN');
    expect(SECURITY_HEADERS['x-content-type-options']).toBe('nosniff');
    expect(SECURITY_HEADERS['content-security-policy']).toMatch(/^default-src 'none';/);
    expect(SECURITY_HEADERS['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(SECURITY_HEADERS['content-security-policy']).not.toContain('script-src');
  });
});
