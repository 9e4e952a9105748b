/**
 * A calendar host on loopback for the booking tests (docs/design.md §12): serves each path as it is
 * told — a feed with an ETag and Last-Modified that answers a matching conditional request with
 * 304, an error status, a redirect, a body larger than asked, or an answer that never comes — and
 * records every request's conditional headers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FeedRoute =
  | { kind: 'feed'; body: string; contentType?: string; etag?: string; lastModified?: string }
  | { kind: 'status'; status: number; body?: string }
  | { kind: 'redirect'; location: string; status?: number }
  | { kind: 'huge'; bytes: number; declareLength: boolean }
  | { kind: 'silent' };

export interface FeedRequest {
  path: string;
  authorization: string | undefined;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  status: number;
}

export class FeedServer {
  readonly requests: FeedRequest[] = [];
  private readonly routes = new Map<string, FeedRoute>();
  private readonly silent = new Set<ServerResponse>();
  private server: Server | undefined;
  private base = '';

  /** What `path` answers from now on. */
  serve(path: string, route: FeedRoute): void {
    this.routes.set(path, route);
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  /** The requests for one path so far. */
  requestsFor(path: string): FeedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.answer(request, response);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const response of this.silent) response.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => {
      if (this.server === undefined) resolve();
      else
        this.server.close(() => {
          resolve();
        });
    });
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const route = this.routes.get(path) ?? { kind: 'status', status: 404 };
    const record = (status: number): void => {
      this.requests.push({
        path,
        authorization: header(request, 'authorization'),
        ifNoneMatch: header(request, 'if-none-match'),
        ifModifiedSince: header(request, 'if-modified-since'),
        status,
      });
    };
    switch (route.kind) {
      case 'feed': {
        const fresh =
          (route.etag !== undefined && header(request, 'if-none-match') === route.etag) ||
          (route.etag === undefined && route.lastModified !== undefined && header(request, 'if-modified-since') === route.lastModified);
        const headers: Record<string, string> = { 'content-type': route.contentType ?? 'text/calendar; charset=utf-8' };
        if (route.etag !== undefined) headers.etag = route.etag;
        if (route.lastModified !== undefined) headers['last-modified'] = route.lastModified;
        record(fresh ? 304 : 200);
        response.writeHead(fresh ? 304 : 200, headers);
        response.end(fresh ? undefined : route.body);
        return;
      }
      case 'status':
        record(route.status);
        response.writeHead(route.status, { 'content-type': 'text/plain' });
        response.end(route.body ?? 'error');
        return;
      case 'redirect':
        record(route.status ?? 302);
        response.writeHead(route.status ?? 302, { location: route.location });
        response.end();
        return;
      case 'huge': {
        record(200);
        response.writeHead(200, { 'content-type': 'text/calendar', ...(route.declareLength ? { 'content-length': String(route.bytes) } : {}) });
        const line = Buffer.from('X-FILLER:0123456789012345678901234567890123456789012345678901234567890123456789\r\n');
        let sent = 0;
        const more = (): void => {
          while (sent < route.bytes) {
            const chunk = line.subarray(0, Math.min(line.length, route.bytes - sent));
            sent += chunk.length;
            if (!response.write(chunk)) {
              response.once('drain', more);
              return;
            }
          }
          response.end();
        };
        response.on('error', () => undefined);
        more();
        return;
      }
      case 'silent':
        record(0);
        this.silent.add(response);
        return;
    }
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
