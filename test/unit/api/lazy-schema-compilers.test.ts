import { describe, expect, it } from '@jest/globals';
import { Ajv, type AnySchema } from 'ajv';
import Fastify, { type FastifyInstance } from 'fastify';
import { LazySchemaCompilers } from '../../../src/api/lazy-schema-compilers.js';

/* Route schemas compiled on first use only; behaviour unchanged. */

function server(): { app: FastifyInstance; schemas: LazySchemaCompilers; compiled: string[] } {
  const schemas = new LazySchemaCompilers();
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
  return { app, schemas, compiled };
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

  it('compileAll compiles what is left, and a request then compiles nothing again', async () => {
    const { app, schemas, compiled } = server();
    await app.ready();
    expect(schemas.compileAll()).toEqual([]);
    expect(schemas.waiting).toBe(0);
    expect(compiled.sort()).toEqual(['/a body', '/b body']);
    expect((await app.inject({ method: 'POST', url: '/b', payload: { name: 'Alex' } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/a', payload: { name: 'Alex' } })).json()).toEqual({ greeting: 'hello Alex' });
    expect(compiled).toHaveLength(2);
    await app.close();
  });

  it('a schema that does not compile is reported by compileAll, never thrown, and its route fails the same way', () => {
    const schemas = new LazySchemaCompilers();
    const validate = schemas.validator<AnySchema>(() => {
      throw new Error('unknown keyword "nope"');
    });
    const lazy = validate({ schema: {}, method: 'POST', url: '/x', httpPart: 'body' });
    expect(schemas.waiting).toBe(1);
    expect(schemas.compileAll()).toEqual(['unknown keyword "nope"']);
    expect(schemas.waiting).toBe(0);
    expect(() => lazy({})).toThrow('unknown keyword "nope"');
  });
});
