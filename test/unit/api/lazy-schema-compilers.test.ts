import { describe, expect, it } from '@jest/globals';
import { Ajv, type AnySchema } from 'ajv';
import Fastify, { type FastifyInstance } from 'fastify';
import { LazySchemaCompilers } from '../../../src/api/lazy-schema-compilers.js';
import { RecordingLogger } from '../../support/recording-logger.js';

/* Route schemas compiled on first use (start-up), then in the background; behaviour unchanged. */

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function server(logger = new RecordingLogger()): { app: FastifyInstance; schemas: LazySchemaCompilers; compiled: string[]; logger: RecordingLogger } {
  const schemas = new LazySchemaCompilers(logger);
  const compiled: string[] = [];
  const ajv = new Ajv({ allErrors: true, coerceTypes: false });
  const app = Fastify({ logger: false, schemaController: { compilersFactory: { buildSerializer: schemas.serializerFactory() } } });
  app.setValidatorCompiler(
    schemas.validator<AnySchema>(({ schema, url, httpPart }) => {
      compiled.push(`${url} ${httpPart ?? ''}`);
      return ajv.compile(schema);
    }),
  );
  const body = { type: 'object', properties: { name: { type: 'string', minLength: 2 } }, required: ['name'], additionalProperties: false };
  const reply = { 200: { type: 'object', properties: { greeting: { type: 'string' } }, required: ['greeting'] } };
  app.post('/a', { schema: { body, response: reply } }, (request) => ({ greeting: `hello ${(request.body as { name: string }).name}`, secret: 'not in the schema' }));
  app.post('/b', { schema: { body } }, () => ({ ok: true }));
  return { app, schemas, compiled, logger };
}

describe('LazySchemaCompilers', () => {
  it('compiles nothing at ready(); a request compiles its own route only, validates and serializes as the eager compilers do', async () => {
    const { app, schemas, compiled } = server();
    await app.ready();
    expect(compiled).toEqual([]);
    // /a: one validator, one serializer; /b: one validator (its 200 has no schema).
    expect(schemas.waiting).toBe(3);

    const ok = await app.inject({ method: 'POST', url: '/a', payload: { name: 'Olivia' } });
    expect(ok.statusCode).toBe(200);
    // fast-json-stringify still drops what the response schema does not name.
    expect(ok.json()).toEqual({ greeting: 'hello Olivia' });
    expect(compiled).toEqual(['/a body']);
    expect(schemas.waiting).toBe(1);

    const bad = await app.inject({ method: 'POST', url: '/a', payload: { name: 'O', extra: 1 } });
    expect(bad.statusCode).toBe(400);
    // The errors of the compiled validator reach Fastify's message (both, allErrors).
    expect(bad.json<{ message: string }>().message).toContain('must NOT have fewer than 2 characters');
    expect(bad.json<{ message: string }>().message).toContain('must NOT have additional properties');
    expect(compiled).toEqual(['/a body']);
    await app.close();
  });

  it('warmUp compiles what is left, one schema per turn, and can be stopped', async () => {
    const { app, schemas, compiled } = server();
    await app.ready();
    const stop = schemas.warmUp(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (let turns = 0; turns < 10 && schemas.waiting > 0; turns += 1) await nextTurn();
    expect(schemas.waiting).toBe(0);
    expect(compiled.sort()).toEqual(['/a body', '/b body']);
    stop();
    // Already compiled: a request compiles nothing again.
    expect((await app.inject({ method: 'POST', url: '/b', payload: { name: 'Alex' } })).statusCode).toBe(200);
    expect(compiled).toHaveLength(2);
    await app.close();
  });

  it('a schema that does not compile is logged by the warm-up, never thrown', async () => {
    const logger = new RecordingLogger();
    const schemas = new LazySchemaCompilers(logger);
    const validate = schemas.validator<AnySchema>(() => {
      throw new Error('unknown keyword "nope"');
    });
    const lazy = validate({ schema: {}, method: 'POST', url: '/x', httpPart: 'body' });
    expect(schemas.waiting).toBe(1);
    schemas.warmUp(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await nextTurn();
    expect(logger.lines).toEqual([{ level: 'error', message: 'A route schema does not compile: unknown keyword "nope"' }]);
    // The route's first request fails the same way (Fastify answers it with an error).
    expect(() => lazy({})).toThrow('unknown keyword "nope"');
  });
});
