import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { Logger } from '../logger.js';
import { describeError } from '../domain/errors.js';

/** Environment variable naming the demo control socket inside Homebridge (docs/homekit.md). */
export const DEMO_CONTROL_ENV = 'EKEY_DEMO_CONTROL';

/**
 * Answers one demo control line (docs/design.md §6: `{"op":"tap"|"manual"|"battery"|"jam"|"offline"|"online",…}`)
 * with its one-line JSON answer (`{"ok":true}` or `{"ok":false,"error":…}`, echoing `"id"`), once
 * the simulated lock has acted on it. The same handler serves `ekey-locks demo`'s stdin.
 */
export type DemoControlHandler = (line: string) => Promise<string>;

/** What the embedded service offers in demo mode to drive its simulated locks. */
export interface DemoControlProvider {
  /** The control-line handler; undefined outside demo mode. */
  demoControl(): DemoControlHandler | undefined;
}

/** An open control socket. */
export interface DemoControlChannel {
  /** Stops accepting connections, ends open ones and removes the socket file. */
  close(): Promise<void>;
}

/**
 * The socket of {@link DEMO_CONTROL_ENV} for a service in demo mode: undefined when the variable
 * is not set; a service without demo control, or a socket that cannot be opened, is logged and
 * answered with undefined too — the plugin runs on without it.
 */
export async function openDemoControlFromEnvironment(service: Partial<DemoControlProvider> | undefined, logger: Logger): Promise<DemoControlChannel | undefined> {
  const path = process.env[DEMO_CONTROL_ENV];
  if (path === undefined || path === '') return undefined;
  const handler = service?.demoControl?.();
  if (!handler) {
    logger.warn(`${DEMO_CONTROL_ENV} is set but this service offers no demo control; ignored.`);
    return undefined;
  }
  try {
    return await openDemoControlChannel(path, handler, logger);
  } catch (error) {
    logger.error(`Could not open the demo control socket ${path}: ${describeError(error)}`);
    return undefined;
  }
}

/**
 * Homebridge gives a plugin no stdin, so in demo mode the control lines of `ekey-locks demo`
 * arrive on a Unix socket instead: one JSON line in, one JSON line out, in order per connection.
 * A supported way to drive the demo inside Homebridge (docs/design.md §6, docs/homekit.md "Demo control
 * inside Homebridge"), opened only when {@link DEMO_CONTROL_ENV} names a path.
 */
export async function openDemoControlChannel(path: string, handle: DemoControlHandler, logger: Logger): Promise<DemoControlChannel> {
  rmSync(path, { force: true });
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', (error) => {
      logger.debug(`demo control connection: ${error.message}`);
    });
    serveConnection(socket, handle, logger).catch((error: unknown) => {
      logger.warn(`demo control connection failed: ${describeError(error)}`);
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // A listening server must keep an error listener: an 'error' event with none would end the process.
  server.on('error', (error) => {
    logger.warn(`demo control socket ${path}: ${error.message}`);
  });
  logger.info(`Demo control lines accepted on ${path}`);
  return {
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      rmSync(path, { force: true });
    },
  };
}

async function serveConnection(socket: Socket, handle: DemoControlHandler, logger: Logger): Promise<void> {
  const lines = createInterface({ input: socket, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let answer: string;
    try {
      answer = await handle(line);
    } catch (error) {
      logger.warn(`demo control line failed: ${describeError(error)}`);
      answer = JSON.stringify({ ok: false, error: describeError(error) });
    }
    if (socket.destroyed) return;
    socket.write(`${answer}\n`);
  }
}
