import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestService, type TestService } from '../../support/test-service.js';
import { signInDemoUser } from '../../support/demo-process.js';

/*
 * The rules every route follows (docs/design.md §3 "Paths and conventions", "Errors"), checked over real
 * HTTP against the real service: content negotiation, body media types and limits, problem+json
 * errors, request ids, security headers, bearer challenges and the OpenAPI document.
 */

let ts: TestService;
let token: string;

beforeAll(async () => {
  ts = await startTestService();
  token = (await signInDemoUser(ts.baseUrl, ts.demo)).access_token;
});

afterAll(async () => {
  await ts.close();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function call(path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(`${ts.baseUrl}${path}`, init);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const authorized = (headers: Record<string, string> = {}): Record<string, string> => ({ authorization: `Bearer ${token}`, ...headers });

/** Every error of this API has the same shape; asserts it and returns the body. */
function expectProblem(answer: Answer, status: number, code?: string): Record<string, unknown> {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  expect(body).toEqual(
    expect.objectContaining({
      type: expect.any(String) as unknown,
      title: expect.any(String) as unknown,
      status,
      detail: expect.any(String) as unknown,
      code: code ?? (expect.any(String) as unknown),
      request_id: answer.headers.get('x-request-id'),
    }),
  );
  expect(Object.keys(body).filter((key) => !['type', 'title', 'status', 'detail', 'code', 'request_id', 'errors', 'instance'].includes(key))).toEqual([]);
  // No stack frames, no file paths.
  expect(answer.text).not.toMatch(/\bat\s+\S+\s+\(?(?:file:|\/)\S+:\d+:\d+/);
  expect(answer.text).not.toMatch(/node_modules|\/src\/|\.ts:\d+/);
  return body;
}

/** The POST/PUT routes whose body must be JSON, read from the OpenAPI document so new routes are covered. */
async function jsonBodyOperations(): Promise<{ method: string; path: string }[]> {
  const document = JSON.parse((await call('/openapi.json')).text) as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
  };
  const operations: { method: string; path: string }[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const types = Object.keys(operation.requestBody?.content ?? {});
      if (types.length === 1 && types[0] === 'application/json') {
        operations.push({ method: method.toUpperCase(), path: template.replace(/\{[^}]+\}/g, '6f1c1e2a-0000-4000-8000-000000000099') });
      }
    }
  }
  return operations;
}

describe('Accept negotiation', () => {
  it('answers 406 problem+json to Accept: text/html on /me, before asking for a token', async () => {
    const answer = await call('/me', { headers: { accept: 'text/html' } });
    expectProblem(answer, 406, 'not_acceptable');
  });

  it('answers 406 to an authenticated caller too', async () => {
    expectProblem(await call('/me', { headers: authorized({ accept: 'text/html' }) }), 406, 'not_acceptable');
  });

  it.each([undefined, '*/*', 'application/json', 'application/*', 'text/html, application/json;q=0.5'])('serves /me for Accept %p', async (accept) => {
    const headers = authorized(accept === undefined ? {} : { accept });
    const answer = await call('/me', { headers });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(answer.text)).toEqual({ id: ts.demo.users[0]?.id, name: ts.demo.users[0]?.name });
  });

  it('sends no Accept header when fetch is told not to (the missing-Accept case is real)', async () => {
    // undici adds `accept: */*` by default; a raw request proves a missing header is accepted too.
    const { request } = await import('node:http');
    const url = new URL(`${ts.baseUrl}/me`);
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = request({ host: url.hostname, port: url.port, path: url.pathname, headers: { authorization: `Bearer ${token}` } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(status).toBe(200);
  });
});

describe('request bodies', () => {
  it('has JSON-only body routes to check (POST /ekey at least)', async () => {
    const operations = await jsonBodyOperations();
    expect(operations).toContainEqual({ method: 'POST', path: '/ekey' });
  });

  it.each([
    ['text/plain', 'hello'],
    ['application/x-www-form-urlencoded', 'lock_id=x&email=a%40b.c'],
    ['application/xml', '<ekey/>'],
  ])('answers 415 problem+json to a %s body on every JSON route', async (contentType, body) => {
    for (const { method, path } of await jsonBodyOperations()) {
      const answer = await call(path, { method, headers: authorized({ 'content-type': contentType }), body });
      expect(`${method} ${path} ${answer.status}`).toBe(`${method} ${path} 415`);
      expectProblem(answer, 415, 'unsupported_media_type');
    }
  });

  it('answers 400 malformed_json to a body that is not JSON', async () => {
    const answer = await call('/ekey', { method: 'POST', headers: authorized({ 'content-type': 'application/json' }), body: '{"lock_id": ' });
    expectProblem(answer, 400, 'malformed_json');
  });

  it('answers 400 malformed_json naming the refused keys to JSON with __proto__ or constructor.prototype', async () => {
    for (const body of ['{"lock_id": "x", "__proto__": {"admin": true}}', '{"constructor": {"prototype": {"admin": true}}}']) {
      const answer = await call('/ekey', { method: 'POST', headers: authorized({ 'content-type': 'application/json' }), body });
      expectProblem(answer, 400, 'malformed_json');
      expect((JSON.parse(answer.text) as { detail: string }).detail).toContain('__proto__');
    }
  });

  it('answers 413 to a body over 64 KiB, without reading it into a handler', async () => {
    const body = JSON.stringify({ lock_id: '6f1c1e2a-0000-4000-8000-000000000099', name: 'x'.repeat(70 * 1024) });
    const answer = await call('/ekey', { method: 'POST', headers: authorized({ 'content-type': 'application/json' }), body });
    expectProblem(answer, 413, 'body_too_large');
  });

  it('accepts JSON with a charset parameter', async () => {
    const answer = await call('/ekey', {
      method: 'POST',
      headers: authorized({ 'content-type': 'application/json; charset=utf-8' }),
      body: JSON.stringify({ unexpected: true }),
    });
    // Parsed, then refused by the schema: proves the media type itself was accepted.
    expectProblem(answer, 400, 'validation_failed');
  });
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/nope'],
    ['GET', '/me/extra'],
    ['DELETE', '/me'],
    ['POST', '/locks'],
  ])('answer %s %s with 404 problem+json', async (method, path) => {
    const answer = await call(path, { method, headers: authorized() });
    const body = expectProblem(answer, 404, 'route_not_found');
    expect(body.detail).toBe(`No route ${method} ${path}.`);
  });

  it('do not echo the query string', async () => {
    const body = expectProblem(await call('/nope?secret=abc'), 404, 'route_not_found');
    expect(JSON.stringify(body)).not.toContain('secret');
  });
});

describe('errors the router raises before any route', () => {
  it('answer an over-long path segment with 414 problem+json and security headers', async () => {
    const answer = await call(`/users/${'x'.repeat(2_000)}/locks`, { headers: authorized() });
    const body = expectProblem(answer, 414, 'uri_too_long');
    expect(JSON.stringify(body)).not.toContain('FST_');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('x-request-id')).toBe(body.request_id);
  });
});

describe('request ids', () => {
  it('echoes a well-formed incoming x-request-id in the header and in problem bodies', async () => {
    const ok = await call('/me', { headers: authorized({ 'x-request-id': 'trace-42.a_b' }) });
    expect(ok.headers.get('x-request-id')).toBe('trace-42.a_b');
    const failed = await call('/nope', { headers: { 'x-request-id': 'trace-43' } });
    expect(failed.headers.get('x-request-id')).toBe('trace-43');
    expect(expectProblem(failed, 404).request_id).toBe('trace-43');
  });

  it.each([
    ['spaces', 'two words'],
    ['a header injection attempt', 'abc<script>'],
    ['an overlong id', 'x'.repeat(129)],
  ])('replaces %s with a fresh UUID', async (_what, incoming) => {
    const answer = await call('/nope', { headers: { 'x-request-id': incoming } });
    const id = answer.headers.get('x-request-id');
    expect(id).not.toBe(incoming);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(expectProblem(answer, 404).request_id).toBe(id);
  });

  it('mints a different id for each request without one', async () => {
    const [first, second] = await Promise.all([call('/nope'), call('/nope')]);
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
  });
});

describe('security headers', () => {
  it.each([
    ['a success', '/me', true],
    ['a 404', '/nope', false],
    ['a 401', '/me', false],
  ])('are on %s', async (_what, path, withToken) => {
    const answer = await call(path, { headers: withToken ? authorized() : {} });
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    const csp = answer.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(answer.headers.get('x-powered-by')).toBeNull();
    // Personal data: no browser or proxy cache may keep an answer.
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('are on a 406 refusal', async () => {
    const answer = await call('/me', { headers: { accept: 'text/html' } });
    expect(answer.status).toBe(406);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});

describe('bearer authentication', () => {
  it('answers /me without a token with 401 and an invalid_token challenge (docs/design.md §3 Errors)', async () => {
    const answer = await call('/me');
    expectProblem(answer, 401, 'missing_token');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer realm="ekey-locks", error="invalid_token"/);
  });

  it.each([
    ['an unknown token', 'Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'invalid_token'],
    ['a malformed header', 'Bearer', 'invalid_request'],
    ['another scheme', 'Basic dXNlcjpwYXNz', 'invalid_request'],
  ])('answers %s with 401, code %s and an invalid_token challenge', async (_what, authorization, code) => {
    const answer = await call('/me', { headers: { authorization } });
    expectProblem(answer, 401, code);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer realm="ekey-locks", error="invalid_token"/);
  });

  it('matches the scheme case-insensitively', async () => {
    expect((await call('/me', { headers: { authorization: `bearer ${token}` } })).status).toBe(200);
    expect((await call('/me', { headers: { authorization: `BEARER ${token}` } })).status).toBe(200);
  });

  it('protects /users/{user_id} the same way', async () => {
    const answer = await call(`/users/${ts.demo.users[0]?.id ?? ''}`);
    expectProblem(answer, 401, 'missing_token');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer realm="ekey-locks", error="invalid_token"/);
  });
});

describe('GET /openapi.json', () => {
  it('serves an OpenAPI 3.1 document with the user and OAuth routes', async () => {
    const answer = await call('/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const document = JSON.parse(answer.text) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/me', '/users/{user_id}', '/oauth/authorize', '/oauth/token', '/oauth/revoke']));
    expect(Object.keys(document.paths['/oauth/authorize'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(document.paths['/openapi.json']).toBeUndefined();
  });

  it('needs no token', async () => {
    expect((await call('/openapi.json')).status).toBe(200);
  });
});
