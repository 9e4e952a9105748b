import { expect } from '@jest/globals';
import { createConnection, type Socket } from 'node:net';
import { createInterface, type Interface } from 'node:readline';

/** Drives the demo's simulated locks over the control socket: one JSON line in, one out. */
export class DemoControlClient {
  private readonly socket: Socket;
  private readonly lines: Interface;
  private readonly pending: ((line: string) => void)[] = [];

  constructor(path: string) {
    this.socket = createConnection(path);
    this.lines = createInterface({ input: this.socket });
    this.lines.on('line', (line) => this.pending.shift()?.(line));
  }

  async send(command: Record<string, unknown>): Promise<void> {
    const answer = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no answer to ${JSON.stringify(command)} within 5 s`));
      }, 5000);
      this.pending.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
      this.socket.write(`${JSON.stringify(command)}\n`);
    });
    expect(JSON.parse(answer)).toEqual({ ok: true });
  }

  close(): void {
    this.lines.close();
    this.socket.destroy();
  }
}
