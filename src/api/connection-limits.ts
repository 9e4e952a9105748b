import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { buildProblem } from './problem.js';

/** Slow clients are cut and connections bounded (docs/design.md §9b). */
export interface ConnectionLimits {
  /** Headers, and the whole request with its body, must arrive within this (default 30 s). */
  requestTimeoutMs: number;
  /** Open connections at most; past this a new one is answered 503 and closed (default 600). */
  maxConnections: number;
}

/**
 * Defaults: 30 s for a request, as §9b says; 600 connections, which leaves room for the 500 event
 * streams of docs/design.md §9 and stays well under the usual 1024 open files of a Homebridge host.
 */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { requestTimeoutMs: 30_000, maxConnections: 600 };

/** What a connection past the cap is told before it is closed. */
const RETRY_AFTER_S = 5;

/**
 * Node's own timeouts, for `http.createServer`: headers and the whole request (body included)
 * within `requestTimeoutMs`, else 408 and the connection closes. Node looks for late requests
 * every `connectionsCheckingInterval` (30 s by default, which would let a cut come a whole
 * interval late): here a thirtieth of the timeout, at most 1 s.
 */
export function requestTimeouts(limits: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.requestTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.requestTimeoutMs / 30))),
  };
}

/**
 * Caps the open connections of `server`: one past the cap is answered `503` (problem+json, with
 * `Retry-After`) and closed before it is read. Event streams count like any connection.
 */
export function capConnections(server: Server, maxConnections: number): void {
  let open = 0;
  const body = JSON.stringify(
    buildProblem(503, 'too_many_connections', 'The service has as many connections open as it serves; try again in a few seconds.'),
  );
  const refusal =
    'HTTP/1.1 503 Service Unavailable\r\n' +
    'Content-Type: application/problem+json\r\n' +
    `Retry-After: ${RETRY_AFTER_S}\r\n` +
    'Cache-Control: no-store\r\n' +
    'Connection: close\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  server.on('connection', (socket: Socket) => {
    if (open >= maxConnections) {
      socket.end(refusal);
      return;
    }
    open += 1;
    socket.once('close', () => {
      open -= 1;
    });
  });
}
