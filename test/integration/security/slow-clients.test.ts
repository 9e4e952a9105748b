/**
 * docs/design.md §9b, issue finding 8: slow clients are cut and connections are bounded. Real
 * sockets on loopback: a body trickled a byte at a time and headers that never end are cut at the
 * request timeout (shortened here; the default is 30 s), and a connection past the cap gets 503.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ServiceRoot } from '../../../src/service-root.js';
import { DEFAULT_CONNECTION_LIMITS } from '../../../src/api/connection-limits.js';
import { RecordingLogger } from '../../support/recording-logger.js';

const TIMEOUT_MS = 600;
const MAX_CONNECTIONS = 4;
/** The cut may come one check interval late, plus scheduling on a loaded machine. */
const SLACK_MS = 1500;

interface OpenSocket {
  socket: Socket;
  /** Everything the server sent. */
  received(): string;
  /** Resolves when the server closes the connection (with ms since `since`). */
  closed: Promise<void>;
}

function openSocket(port: number): Promise<OpenSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    const closed = new Promise<void>((done) => {
      socket.once('close', () => {
        done();
      });
    });
    socket.once('error', () => undefined);
    socket.once('connect', () => {
      resolve({ socket, received: () => text, closed });
    });
    socket.once('error', reject);
  });
}

describe('slow clients and the connection cap (finding 8)', () => {
  let dataDir: string;
  let service: ServiceRoot;
  let port: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ekey-slow-'));
    service = await ServiceRoot.open({
      config: {},
      dataDir,
      logger: new RecordingLogger(),
      demo: false,
      connectionLimits: { requestTimeoutMs: TIMEOUT_MS, maxConnections: MAX_CONNECTIONS },
    });
    port = Number(new URL(await service.listen(0, '127.0.0.1')).port);
  });

  afterAll(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('defaults to 30 s for headers and body', async () => {
    expect(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs).toBe(30_000);
    const folder = mkdtempSync(join(tmpdir(), 'ekey-slow-defaults-'));
    const defaults = await ServiceRoot.open({ config: {}, dataDir: folder, logger: new RecordingLogger(), demo: false });
    try {
      await defaults.listen(0, '127.0.0.1');
      const server = defaults.http?.server;
      expect(server?.requestTimeout).toBe(30_000);
      expect(server?.headersTimeout).toBe(30_000);
    } finally {
      await defaults.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('cuts a body trickled one byte at a time at the request timeout', async () => {
    const client = await openSocket(port);
    const body = JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'x'.repeat(60) });
    client.socket.write(
      `POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const started = performance.now();
    let sent = 0;
    // One byte every 100 ms: the whole body would take several seconds.
    const trickle = setInterval(() => {
      if (!client.socket.destroyed && sent < body.length) client.socket.write(body.charAt(sent++));
    }, 100);
    await client.closed;
    clearInterval(trickle);
    const elapsed = performance.now() - started;
    expect(sent).toBeLessThan(body.length);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('cuts headers that never end at the request timeout', async () => {
    const client = await openSocket(port);
    client.socket.write('GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const started = performance.now();
    const trickle = setInterval(() => {
      if (!client.socket.destroyed) client.socket.write('X-Slow: y\r\n');
    }, 100);
    await client.closed;
    clearInterval(trickle);
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('answers 503 to a connection past the cap, and serves again once one closes', async () => {
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => openSocket(port)));
    const refused = await openSocket(port);
    refused.socket.write('GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n');
    await refused.closed;
    expect(refused.received()).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.received()).toContain('Retry-After: 5');
    expect(refused.received()).toContain('"code":"too_many_connections"');

    const first = held.shift();
    first?.socket.destroy();
    await first?.closed;
    // The server may see that close a moment after the client: ask until it answers (bounded).
    const deadline = performance.now() + 5000;
    let status = 0;
    while (status !== 200 && performance.now() < deadline) {
      const answer = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-authorization-server`, { headers: { accept: 'application/json', connection: 'close' } });
      status = answer.status;
      await answer.arrayBuffer();
    }
    expect(status).toBe(200);
    for (const client of held) client.socket.destroy();
  });
});
