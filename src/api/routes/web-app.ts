import type { FastifyReply, FastifyRequest } from 'fastify';
import { dropOpenerPolicyOnPlainHttp } from '../web/opener-policy.js';
import type { WebAsset } from '../web/web-assets.js';
import type { TypedFastify } from './route-context.js';

/**
 * The web app's policy (docs/design.md §7): scripts, styles and connections from this origin only — no
 * inline script, no CDN; images may be data: URLs (the chart's legend swatches).
 */
export const WEB_APP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The app's pages: one HTML document; the client routes by the URL fragment. */
const PAGES = new Set(['', 'callback']);

function preferredEncoding(acceptEncoding: string | undefined, asset: WebAsset): 'br' | 'gzip' | undefined {
  if (acceptEncoding === undefined) return undefined;
  const accepted = acceptEncoding.split(',').map((part) => part.trim().split(';')[0]?.trim().toLowerCase());
  if (asset.brotli && accepted.includes('br')) return 'br';
  if (asset.gzip && accepted.includes('gzip')) return 'gzip';
  return undefined;
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: WebAsset): FastifyReply {
  dropOpenerPolicyOnPlainHttp(request, reply);
  void reply
    .header('content-security-policy', WEB_APP_CSP)
    .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('etag', asset.etag)
    .header('vary', 'Accept-Encoding')
    .type(asset.contentType);
  if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
  const encoding = preferredEncoding(request.headers['accept-encoding'], asset);
  if (encoding !== undefined) void reply.header('content-encoding', encoding);
  const body = encoding === 'br' ? asset.brotli : encoding === 'gzip' ? asset.gzip : asset.body;
  return reply.send(request.method === 'HEAD' ? undefined : body);
}

function notFound(reply: FastifyReply, message: string, status = 404): FastifyReply {
  return reply.status(status).type('text/plain; charset=utf-8').send(message);
}

/**
 * The web app at `/app/` (docs/design.md §7): `GET /` redirects there, `/app/` and `/app/callback` are the
 * app's page, `/app/assets/…` its bundles, `/favicon.ico` the icon browsers ask for. Exempt from
 * the JSON Accept rule; public (the app signs in itself).
 */
export function registerWebAppRoutes(app: TypedFastify, assets: ReadonlyMap<string, WebAsset>): void {
  const config = { produces: 'asset' } as const;
  const schema = { hide: true } as const;
  const page = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const index = assets.get('index.html');
    if (!index) return notFound(reply, 'The web app is not built; run `npm run build`.', 503);
    return sendAsset(request, reply, index);
  };

  app.get('/', { config, schema }, (request, reply) => {
    dropOpenerPolicyOnPlainHttp(request, reply);
    return reply.redirect('/app/', 302);
  });
  app.get('/app', { config, schema }, (request, reply) => {
    dropOpenerPolicyOnPlainHttp(request, reply);
    return reply.redirect('/app/', 301);
  });
  app.get('/favicon.ico', { config, schema }, (request, reply) => {
    const icon = assets.get('favicon.svg');
    return icon ? sendAsset(request, reply, icon) : notFound(reply, 'No icon.');
  });
  app.get<{ Params: { '*': string } }>('/app/*', { config, schema }, (request, reply) => {
    const path = request.params['*'];
    if (PAGES.has(path)) return page(request, reply);
    const asset = path === 'index.html' ? undefined : assets.get(path);
    return asset ? sendAsset(request, reply, asset) : notFound(reply, 'Not found.');
  });
}
