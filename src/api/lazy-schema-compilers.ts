import SerializerSelector, { type SerializerFactory, type Serializer } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifyValidationResult } from 'fastify/types/schema.js';
import type { Logger } from '../logger.js';
import { describeError } from '../domain/errors.js';

/**
 * Route schemas compiled on first use instead of at start-up. Fastify compiles every route's
 * request validators (ajv) and response serializers (fast-json-stringify) in `ready()`: about a
 * third of the service's start-up CPU, paid before the API can listen and HomeKit gets its
 * accessories (docs/performance.md "footprint"). Here each compiler hands Fastify a stand-in that
 * compiles the real function the first time it is called — the same schema, the same compiler, the
 * same options, so requests are validated and answers serialized exactly as before — and
 * {@link warmUp}, started a moment after the server listens, compiles the rest in idle turns of
 * the event loop, one schema per turn, so a first request rarely pays for it and a schema that does
 * not compile shows in the log at start rather than at its first request.
 */
export class LazySchemaCompilers {
  private readonly pending = new Set<() => void>();

  constructor(private readonly logger: Logger) {}

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
   * Compiles what is still waiting, one schema per turn of the event loop, after `delayMs`;
   * failures are logged (the route's first request then fails the same way). Returns a function
   * that stops it.
   */
  warmUp(delayMs: number): () => void {
    let stopped = false;
    let immediate: NodeJS.Immediate | undefined;
    const next = (): void => {
      immediate = undefined;
      if (stopped) return;
      const [build] = this.pending;
      if (build === undefined) return;
      this.pending.delete(build);
      try {
        build();
      } catch (error) {
        this.logger.error(`A route schema does not compile: ${describeError(error)}`);
      }
      immediate = setImmediate(next);
    };
    const timer = setTimeout(next, delayMs);
    timer.unref();
    return () => {
      stopped = true;
      clearTimeout(timer);
      if (immediate !== undefined) clearImmediate(immediate);
    };
  }
}
