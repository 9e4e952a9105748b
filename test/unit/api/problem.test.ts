import { describe, expect, it } from '@jest/globals';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { Type } from 'typebox';
import { buildProblem, createErrorHandler, createHtmlErrorHandler, problemTypeUri } from '../../../src/api/problem.js';
import { renderInvitationErrorPage } from '../../../src/auth/invitation-pages.js';
import { ServiceError, conflict, notFound, tooManyRequests, validationFailed } from '../../../src/domain/errors.js';
import { RecordingLogger } from '../../support/recording-logger.js';

describe('buildProblem', () => {
  it('fills type, title, status, detail and code', () => {
    expect(buildProblem(409, 'ekey_exists', 'The user already holds a key.')).toEqual({
      type: 'urn:ekey-locks:problem:ekey_exists',
      title: 'Conflict',
      status: 409,
      detail: 'The user already holds a key.',
      code: 'ekey_exists',
    });
  });

  it('adds per-field errors only when there are some', () => {
    expect(buildProblem(400, 'validation_failed', 'bad', [])).not.toHaveProperty('errors');
    expect(buildProblem(400, 'validation_failed', 'bad', [{ field: '/name', message: 'is required' }]).errors).toEqual([
      { field: '/name', message: 'is required' },
    ]);
  });

  it('titles an unlisted status "Error"', () => {
    expect(buildProblem(418, 'teapot', 'no').title).toBe('Error');
  });

  it('builds type URIs from the code', () => {
    expect(problemTypeUri('not_found')).toBe('urn:ekey-locks:problem:not_found');
  });
});

/** A bare Fastify app with only the error handler under test and routes that fail in each way. */
async function appWithHandler(logger: RecordingLogger): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: 100,
    genReqId: () => 'req-1',
    // As strict as the API's body validator (src/api/server.ts): no coercion, no silent stripping.
    ajv: { customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false } },
  });
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(createErrorHandler(logger));
  app.get('/not-found', () => {
    throw notFound('eKey');
  });
  app.get('/conflict', () => {
    throw conflict('ekey_exists', 'Already there.');
  });
  app.get('/rate-limited', () => {
    throw tooManyRequests('queue_full', 'Queue full.', 2.2);
  });
  app.get('/invalid-fields', () => {
    throw validationFailed([{ field: '/valid_to', message: 'must be after valid_from' }]);
  });
  app.get('/crash', () => {
    throw new Error('SQLITE_CORRUPT at /srv/secret/path.sqlite');
  });
  app.get('/client-error', () => {
    throw Object.assign(new Error('Header too odd'), { statusCode: 400 });
  });
  app.post(
    '/things',
    { schema: { body: Type.Object({ name: Type.String() }, { additionalProperties: false }) } },
    () => ({ ok: true }),
  );
  await app.ready();
  return app;
}

describe('createErrorHandler', () => {
  const cases: { name: string; request: InjectOptions; status: number; code: string }[] = [
    { name: 'a ServiceError 404', request: { url: '/not-found' }, status: 404, code: 'not_found' },
    { name: 'a ServiceError 409', request: { url: '/conflict' }, status: 409, code: 'ekey_exists' },
    { name: 'a ServiceError 400 with fields', request: { url: '/invalid-fields' }, status: 400, code: 'validation_failed' },
    { name: 'a Fastify 4xx without a code', request: { url: '/client-error' }, status: 400, code: 'bad_request' },
    {
      name: 'malformed JSON',
      request: { method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{"name":' },
      status: 400,
      code: 'malformed_json',
    },
    {
      name: 'an empty JSON body',
      request: { method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '' },
      status: 400,
      code: 'malformed_json',
    },
    {
      name: 'a text/plain body',
      request: { method: 'POST', url: '/things', headers: { 'content-type': 'text/plain' }, payload: 'name=x' },
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: 'a body over the limit',
      request: { method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'x'.repeat(200) }) },
      status: 413,
      code: 'body_too_large',
    },
    {
      name: 'a schema violation',
      request: { method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{"name":1,"extra":true}' },
      status: 400,
      code: 'validation_failed',
    },
  ];

  it.each(cases)('maps $name to $status $code as problem+json', async ({ request, status, code }) => {
    const app = await appWithHandler(new RecordingLogger());
    const response = await app.inject(request);
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(response.body) as Record<string, unknown>;
    expect(body).toMatchObject({ status, code, type: problemTypeUri(code), request_id: 'req-1' });
    expect(typeof body.title).toBe('string');
    expect(typeof body.detail).toBe('string');
    expect(response.body).not.toMatch(/\s+at\s.+:\d+:\d+/);
    await app.close();
  });

  it('reports which fields failed validation', async () => {
    const app = await appWithHandler(new RecordingLogger());
    const response = await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{"extra":true}' });
    expect(response.json<{ errors: unknown }>().errors).toEqual(
      expect.arrayContaining([
        { field: 'body/name', message: expect.any(String) as unknown },
        { field: 'body/extra', message: 'is not a known property' },
      ]),
    );
    await app.close();
  });

  it('keeps the headers a ServiceError carries (Retry-After)', async () => {
    const app = await appWithHandler(new RecordingLogger());
    const response = await app.inject({ url: '/rate-limited' });
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('3');
    await app.close();
  });

  it('answers an unexpected error with a bare 500 and logs it with the request id', async () => {
    const logger = new RecordingLogger();
    const app = await appWithHandler(logger);
    const response = await app.inject({ url: '/crash' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      type: problemTypeUri('internal_error'),
      title: 'Internal Server Error',
      status: 500,
      detail: 'An unexpected error occurred. It has been logged.',
      code: 'internal_error',
      request_id: 'req-1',
    });
    expect(response.body).not.toContain('SQLITE');
    expect(response.body).not.toContain('/srv/secret');
    expect(logger.lines).toEqual([{ level: 'error', message: expect.stringContaining('request req-1 GET /crash: Error: SQLITE_CORRUPT') as unknown }]);
    await app.close();
  });

  it('does not log client mistakes as errors', async () => {
    const logger = new RecordingLogger();
    const app = await appWithHandler(logger);
    await app.inject({ url: '/not-found' });
    await app.inject({ method: 'POST', url: '/things', headers: { 'content-type': 'application/json' }, payload: '{' });
    expect(logger.lines.filter((line) => line.level === 'error')).toEqual([]);
    await app.close();
  });

  it('treats a plain ServiceError subclass like any other', async () => {
    const app = Fastify({ logger: false });
    app.setErrorHandler(createErrorHandler(new RecordingLogger()));
    app.get('/', () => {
      throw new ServiceError(402, 'ekey_quota_exhausted', 'No eKeys left to send.');
    });
    const response = await app.inject({ url: '/' });
    expect(response.statusCode).toBe(402);
    expect(response.json()).toMatchObject({ title: 'Payment Required', code: 'ekey_quota_exhausted', detail: 'No eKeys left to send.' });
    await app.close();
  });
});

describe('createHtmlErrorHandler (the invitation pages)', () => {
  async function pages(logger: RecordingLogger): Promise<FastifyInstance> {
    const app = Fastify({ logger: false, genReqId: () => 'req-2' });
    app.setErrorHandler(createHtmlErrorHandler(logger, renderInvitationErrorPage));
    app.get('/expired', () => {
      throw new ServiceError(410, 'invitation_expired', 'This invitation link has expired.');
    });
    app.get('/busy', () => {
      throw tooManyRequests('rate_limited', 'Too many requests; retry in 7 s.', 7);
    });
    app.get('/unreadable', () => {
      throw Object.assign(new Error('Unsupported Media Type: text/csv'), { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' });
    });
    app.get('/disk', () => {
      throw Object.assign(new Error('attempt to write a readonly database'), { name: 'SqliteError', code: 'SQLITE_READONLY' });
    });
    app.get('/crash', () => {
      throw new Error('SQLITE_CORRUPT at /srv/secret/path.sqlite');
    });
    await app.ready();
    return app;
  }

  it('classifies as the API does and draws the answer as a page', async () => {
    const logger = new RecordingLogger();
    const app = await pages(logger);
    const expired = await app.inject({ url: '/expired' });
    expect([expired.statusCode, expired.headers['content-type']]).toEqual([410, 'text/html; charset=utf-8']);
    expect(expired.body).toContain('<h1>Invitation expired</h1>');
    // In the guest's words, with the way on: never the service's wording.
    expect(expired.body).toContain('ask for the eKey to be sent again');
    expect(expired.body).toContain('href="../app/"');
    const busy = await app.inject({ url: '/busy' });
    expect([busy.statusCode, busy.headers['retry-after']]).toEqual([429, '7']);
    expect(busy.body).toContain('Too many attempts');
    // Not the API's "must be application/json": a page speaks of its form.
    const unreadable = await app.inject({ url: '/unreadable' });
    expect(unreadable.statusCode).toBe(415);
    expect(unreadable.body).toContain('The form could not be read');
    const disk = await app.inject({ url: '/disk' });
    expect([disk.statusCode, disk.headers['retry-after']]).toEqual([503, '30']);
    expect(disk.body).toContain('nothing was changed');
    const crash = await app.inject({ url: '/crash' });
    expect(crash.statusCode).toBe(500);
    expect(crash.body).not.toContain('/srv/secret');
    expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.message).join('\n')).toContain('req-2 GET /crash');
    await app.close();
  });
});
