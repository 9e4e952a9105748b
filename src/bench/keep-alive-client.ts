/**
 * The self-measuring scenarios' HTTP client (docs/design.md §8): one keep-alive connection, like a
 * client app's, and a loop that repeats a round trip back to back for a time.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Answer {
  status: number;
  body: string;
}

/** One keep-alive connection, like a client app's. */
export function keepAliveClient(baseUrl: string, token: string | undefined) {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(body));
      }
      const outgoing = request({ host: url.hostname, port: url.port, method, path, headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', reject);
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  return {
    send,
    close: () => {
      agent.destroy();
    },
  };
}

/** Runs `once` back to back for `seconds`; returns the duration of each run, ms. */
export async function repeatFor(seconds: number, once: (index: number) => Promise<void>): Promise<number[]> {
  const durations: number[] = [];
  const end = performance.now() + seconds * 1000;
  for (let index = 0; performance.now() < end; index++) {
    const started = performance.now();
    await once(index);
    durations.push(performance.now() - started);
  }
  return durations;
}
