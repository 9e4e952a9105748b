import SerializerSelector, { type SerializerFactory, type Serializer } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifyValidationResult } from 'fastify/types/schema.js';
import { describeError } from '../domain/errors.js';

/**
 * Route schemas compiled on first use instead of at start-up. Fastify compiles every route's
 * request validators (ajv) and response serializers (fast-json-stringify) in `ready()`: about a
 * third of the service's start-up CPU, paid before the API can listen and HomeKit gets its
 * accessories, and ~20 MiB of generated code kept for the service's whole life
 * (docs/performance.md "footprint"). Here each compiler hands Fastify a stand-in that compiles the
 * real function the first time it is called — the same schema, the same compiler, the same
 * options, so requests are validated and answers serialized exactly as before. Only the routes a
 * household's apps use are ever compiled; each costs its first request a few milliseconds.
 * `test/integration/http/route-schemas.test.ts` compiles every route's schemas ({@link compileAll}),
 * so a schema that does not compile fails a test, not a user's first request.
 */
export class LazySchemaCompilers {
  private readonly pending = new Set<() => void>();

  /** Wraps a validator compiler (Fastify's `setValidatorCompiler`). */
  validator<T>(compile: FastifySchemaCompiler<T>): FastifySchemaCompiler<T> {
    return (routeSchema) => {
      let compiled: FastifyValidationResult | undefined;
      const build = (): FastifyValidationResult => {
        compiled ??= compile(routeSchema);
        this.pending.delete(build);
        return compiled;
      };
      this.pending.add(build);
      const validate: FastifyValidationResult = (data: unknown) => {
        const real = build();
        const result = real(data);
        // Fastify reads the errors of a failed validation from the function it called.
        validate.errors = real.errors ?? null;
        return result;
      };
      validate.errors = null;
      return validate;
    };
  }

  /**
   * Fastify's default serializer factory (fast-json-stringify through
   * @fastify/fast-json-stringify-compiler, with the schemas added by `addSchema`), compiled on
   * first use; for the `schemaController.compilersFactory.buildSerializer` option.
   */
  serializerFactory(): SerializerFactory {
    const selector = SerializerSelector();
    return (externalSchemas, serializerOptions) => {
      const compile = selector(externalSchemas, serializerOptions);
      return (route) => {
        let compiled: Serializer | undefined;
        const build = (): Serializer => {
          compiled ??= compile(route);
          this.pending.delete(build);
          return compiled;
        };
        this.pending.add(build);
        return (data: unknown) => build()(data);
      };
    };
  }

  /** Schemas not compiled yet. */
  get waiting(): number {
    return this.pending.size;
  }

  /**
   * Compiles every schema still waiting, now; returns the messages of those that do not compile
   * (their routes' first requests fail the same way). For tests and tools: the service itself never
   * calls it (see the class comment).
   */
  compileAll(): string[] {
    const failures: string[] = [];
    for (const build of [...this.pending]) {
      this.pending.delete(build);
      try {
        build();
      } catch (error) {
        failures.push(describeError(error));
      }
    }
    return failures;
  }
}
