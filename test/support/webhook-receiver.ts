import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './polling.js';

/** One POST as a webhook receiver got it. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  body: string;
  at: number;
}

/**
 * A real HTTP receiver on loopback for the webhook tests: records every request and answers with
 * what `answer` says (a status, or `hang` to never answer).
 */
export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedDelivery[];
  /** How the next requests are answered (default 204). */
  answerWith(answer: (delivery: ReceivedDelivery) => number | 'hang'): void;
  /** Resolves with the `count`-th delivery (1-based) once it has arrived. */
  nth(count: number, timeoutMs?: number): Promise<ReceivedDelivery>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  let answer: (delivery: ReceivedDelivery) => number | 'hang' = () => 204;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const delivery = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(delivery);
      const status = answer(delivery);
      if (status === 'hang') return;
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(status >= 200 && status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hooks/locks?token=receiver-secret`,
    port: bound,
    received,
    answerWith(next) {
      answer = next;
    },
    async nth(count, timeoutMs = 10_000) {
      await until(() => received.length >= count, () => `delivery #${count} (received ${received.length})`, timeoutMs);
      return received[count - 1] as ReceivedDelivery;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
