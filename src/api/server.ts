import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySwagger from '@fastify/swagger';
import { Ajv, type AnySchema } from 'ajv';
import addFormats from 'ajv-formats';
import { randomUUID } from 'node:crypto';
import { ServiceError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { trustedProxyRangeWarning } from './host/trusted-proxies.js';
import { acceptsMediaType } from './content-negotiation.js';
import { DEFAULT_CONNECTION_LIMITS, capConnections, requestTimeouts, type ConnectionLimits } from './connection-limits.js';
import { LazySchemaCompilers } from './lazy-schema-compilers.js';
import { buildProblem, createErrorHandler } from './problem.js';
import type { ApiServices } from './api-services.js';
import { registerRoutes } from './routes/index.js';
import { documentResponses } from './openapi-responses.js';
import { registerWebAppRoutes } from './routes/web-app.js';
import { defaultWebRoot, loadWebAssets } from './web/web-assets.js';
import type { AllowedHosts } from './host/allowed-hosts.js';
import { messagePage } from '../auth/html-page.js';
import './fastify-types.js';

export type ApiServer = FastifyInstance;

export interface ApiServerOptions {
  logger: Logger;
  services: ApiServices;
  /** Requests per minute per client address on each `/oauth/*` route (default 60). */
  oauthRateLimitPerMinute?: number;
  /** Largest accepted request body in bytes (default 64 KiB). */
  bodyLimit?: number;
  /** Version string shown in the OpenAPI document. */
  version?: string;
  /** Folder of the built web app (default: the package's `dist/web`). */
  webRoot?: string;
  /** The `Host` names answered (docs/design.md §9b); any other is refused with 421. */
  allowedHosts: AllowedHosts;
  /** `api.trusted_proxies`: the only peers whose X-Forwarded-* headers are believed (docs/design.md §7). */
  trustedProxies?: readonly string[];
  /** Sees every response as it is sent (the API tests hold each against docs/openapi.json). */
  observeResponse?: (response: ObservedResponse) => void;
  /** Slow-client timeout and connection cap (docs/design.md §9b; defaults 30 s and 600). */
  connectionLimits?: Partial<ConnectionLimits>;
}

/** A response as {@link ApiServerOptions.observeResponse} sees it. */
export interface ObservedResponse {
  method: string;
  /** The route's URL pattern (`/ekey/:ekey_id`), undefined when no route matched. */
  route: string | undefined;
  status: number;
  contentType: string;
  /** The body as sent, undefined for a stream. */
  body: string | undefined;
}

/**
 * The headers helmet 8 sends for our configuration (no HSTS — the service usually runs on a LAN
 * over plain HTTP; CSP locked down to what the login page needs). Computed once: @fastify/helmet
 * rebuilds the helmet middleware on every request, which cost ~7 % of the CPU of `GET /me`.
 * test/unit/api/security-headers.test.ts checks this table against @fastify/helmet.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none';style-src 'unsafe-inline';img-src 'self' data:;frame-ancestors 'none';base-uri 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

/**
 * What every response carries: the security headers, `X-Robots-Tag: noindex`, and `Cache-Control:
 * no-store`, since answers hold personal data (keys, events, users) that no browser or proxy cache
 * should keep. Routes
 * that need another policy set their own (the event stream: `no-cache, no-transform`).
 */
const RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...SECURITY_HEADERS,
  'cache-control': 'no-store',
  // A private service, even when a proxy puts it on the internet (docs/design.md §7): never indexed.
  'x-robots-tag': 'noindex, nofollow',
});

/** `/robots.txt`: nothing here is for crawlers. */
const ROBOTS_TXT = 'User-agent: *\nDisallow: /\n';

/** Each server's lazily compiled route schemas, for {@link compileRouteSchemas}. */
const routeSchemas = new WeakMap<ApiServer, LazySchemaCompilers>();

/**
 * Compiles every route schema of `server` not compiled yet; returns the messages of those that do
 * not compile. For tests: the service compiles a route's schemas at its first request.
 */
export function compileRouteSchemas(server: ApiServer): string[] {
  return routeSchemas.get(server)?.compileAll() ?? ['not a server built by buildApiServer'];
}

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/** Honour a well-formed incoming X-Request-Id (for tracing through a proxy), else mint one. */
function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
}

/**
 * Bodies are validated strictly (no type coercion, unknown properties rejected); path and query
 * strings are coerced, since they arrive as text.
 */
function createValidators(): { body: Ajv; other: Ajv } {
  const common = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const;
  const body = new Ajv({ ...common, coerceTypes: false });
  const other = new Ajv({ ...common, coerceTypes: 'array' });
  addFormats.default(body);
  addFormats.default(other);
  return { body, other };
}

/**
 * 421 for a `Host` the service does not answer (docs/design.md §9b): a plain page where a browser
 * asked for one, problem+json otherwise.
 */
function sendMisdirected(request: FastifyRequest, reply: FastifyReply, html: boolean): void {
  const detail =
    'This service does not answer to that host name. Open it by the address it gives (its log, its invitation e-mails), ' +
    'or add the name to api.allowed_hosts.';
  void reply.status(421);
  if (html) {
    void reply.type('text/html; charset=utf-8').send(messagePage('Wrong address', detail));
    return;
  }
  void reply.type('application/problem+json').send({ ...buildProblem(421, 'misdirected_request', detail), request_id: request.id });
}

/** Builds the HTTP API: cross-cutting rules first, then one route module per resource. */
export async function buildApiServer(options: ApiServerOptions): Promise<ApiServer> {
  // Schemas are compiled on first use: start-up is not kept waiting for ~60 validators and
  // serializers, and routes nobody calls cost no memory (docs/performance.md "footprint").
  const schemas = new LazySchemaCompilers();
  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...options.connectionLimits };
  const proxyRanges = options.trustedProxies === undefined ? undefined : trustedProxyRangeWarning(options.trustedProxies);
  if (proxyRanges !== undefined) options.logger.warn(proxyRanges);
  const app = Fastify({
    logger: false,
    // Slow clients are cut: headers and body within the timeout (§9b); Fastify sets it on the server too.
    http: requestTimeouts(limits),
    requestTimeout: limits.requestTimeoutMs,
    schemaController: { compilersFactory: { buildSerializer: schemas.serializerFactory() } },
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    genReqId: requestId,
    requestIdHeader: false,
    return503OnClosing: true,
    // X-Forwarded-For/-Proto/-Host only from the configured proxies; from anyone else they are ignored.
    // The client's address is the rightmost X-Forwarded-For entry that is not a trusted proxy
    // (proxy-addr), never what a client wrote to the left of it (src/api/host/trusted-proxies.ts).
    ...(options.trustedProxies !== undefined && options.trustedProxies.length > 0 ? { trustProxy: [...options.trustedProxies] } : {}),
    forceCloseConnections: true,
    // Errors the router raises before any route or hook runs: answered as problem+json too.
    frameworkErrors: (error, request, reply) => {
      const [status, code, detail] =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? [414, 'uri_too_long', 'A path segment of the URL is too long.']
          : error.code === 'FST_ERR_BAD_URL'
            ? [400, 'malformed_url', 'The URL is not valid.']
            : [400, 'bad_request', 'The request could not be routed.'];
      void (reply as FastifyReply)
        .headers(RESPONSE_HEADERS)
        .header('x-request-id', request.id)
        .status(status)
        .type('application/problem+json')
        .send({ ...buildProblem(status, code, detail), request_id: request.id });
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  capConnections(app.server, limits.maxConnections);
  const validators = createValidators();
  app.setValidatorCompiler(schemas.validator<AnySchema>(({ schema, httpPart }) => (httpPart === 'body' ? validators.body : validators.other).compile(schema)));
  routeSchemas.set(app, schemas);
  // Only JSON bodies are accepted (415 otherwise); the OAuth routes add form bodies in their scope.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('caller', null);
  app.setErrorHandler(createErrorHandler(options.logger));
  app.setNotFoundHandler((request, reply) => {
    void reply
      .status(404)
      .type('application/problem+json')
      .send({ ...buildProblem(404, 'route_not_found', `No route ${request.method} ${request.url.split('?')[0] ?? ''}.`), request_id: request.id });
  });

  // Security headers first, so refusals (406, 401, 404) carry them too. One synchronous hook:
  // it runs on every request, so it only copies precomputed values.
  app.addHook('onRequest', (request: FastifyRequest, reply, done) => {
    void reply.headers(RESPONSE_HEADERS).header('x-request-id', request.id);
    const produces = request.routeOptions.config.produces ?? 'json';
    if (!options.allowedHosts.allows(request.host)) {
      // Answered here, before any page or redirect is built from a Host that is not ours.
      sendMisdirected(request, reply, produces === 'html' || produces === 'asset');
      return;
    }
    if (produces === 'json' && !acceptsMediaType(request.headers.accept, 'application/json')) {
      done(new ServiceError(406, 'not_acceptable', 'This API answers application/json only; send Accept: application/json.'));
      return;
    }
    done();
  });
  await app.register(fastifyRateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new ServiceError(429, 'rate_limited', `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s.`, undefined, {
        'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))),
      }),
  });
  await app.register(fastifySwagger, {
    // Shared schemas keep their names in the document (`Problem`, `EKey`, …).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => (typeof json.$id === 'string' ? json.$id : `def-${String(index)}`) },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'homebridge-ekey-locks access service',
        version: options.version ?? '0.1.0',
        description: 'OAuth 2.0 protected REST API for eKeys, locks, remote commands and lock events.',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
      security: [{ bearer: [] }],
    },
  });

  const observe = options.observeResponse;
  if (observe !== undefined) {
    app.addHook('onSend', (request, reply, payload, done) => {
      const header = reply.getHeader('content-type');
      observe({
        method: request.method,
        route: request.routeOptions.url,
        status: reply.statusCode,
        contentType: typeof header === 'string' ? header : '',
        body: typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload == null ? '' : undefined,
      });
      done(null, payload);
    });
  }
  // Every status a route can send goes into its schema, so the OpenAPI document lists them all.
  app.addHook('onRoute', documentResponses);
  await registerRoutes(app, {
    services: options.services,
    logger: options.logger,
    oauthRateLimitPerMinute: options.oauthRateLimitPerMinute ?? 60,
  });

  registerWebAppRoutes(app, loadWebAssets(options.webRoot ?? defaultWebRoot()));
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  app.get('/robots.txt', { config: { produces: 'asset' }, schema: { hide: true } }, (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').type('text/plain; charset=utf-8').send(ROBOTS_TXT),
  );
  await app.ready();
  return app;
}
