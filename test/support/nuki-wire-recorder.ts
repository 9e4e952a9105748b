import { EventEmitter } from 'node:events';
import type { AdvertisementListener, ConnectOptions, GattConnection, GattProfile, GattTransport } from '../../src/gateway/gatt-transport.js';
import { NukiCommand, nukiCommandName } from '../../src/families/nuki/protocol/nuki-commands.js';
import { decodeEncryptedFrame } from '../../src/families/nuki/protocol/nuki-frame.js';

/** One encrypted message the gateway wrote to a Nuki's USDIO, decrypted. */
export interface WrittenNukiMessage {
  command: number;
  payload: Buffer;
}

/** Called before a USDIO write reaches the lock; may write to the connection itself first. */
export type BeforeNukiWrite = (message: WrittenNukiMessage, connection: GattConnection) => Promise<void> | void;

interface RecorderEvents {
  connected: [];
  released: [];
  lost: [];
  written: [WrittenNukiMessage];
}

/**
 * A {@link GattTransport} decorator for Nuki tests: counts connects, releases (our
 * `disconnect()`) and lost links, decrypts every USDIO write with the shared key the test knows,
 * and lets a test act just before a given write reaches the lock (spend a challenge, corrupt the
 * next reply). Every count has an awaitable event, so tests wait for what happened, not for time.
 */
export class NukiWireRecorder implements GattTransport {
  readonly kind: GattTransport['kind'];
  /** Commands written on the USDIO, in order (empty with `keepHistory: false`). */
  readonly written: WrittenNukiMessage[] = [];
  connects = 0;
  releases = 0;
  losses = 0;
  /** Set by a test; called before each USDIO write. */
  beforeWrite: BeforeNukiWrite | null = null;
  private readonly events = new EventEmitter<RecorderEvents>();

  /** @param options.keepHistory false for long runs (soak tests): writes are not kept in {@link written}. */
  constructor(
    private readonly inner: GattTransport,
    private readonly sharedKey: Buffer,
    private readonly options: { keepHistory?: boolean } = {},
  ) {
    this.kind = inner.kind;
  }

  /** Names of the commands written so far (Request Data carries the requested command: `Request Data(Challenge)`). */
  get commandNames(): string[] {
    return this.written.map(describeWritten);
  }

  /** Resolves at the next time the gateway closes a connection itself (the on-demand link released). */
  nextRelease(timeoutMs = 5_000): Promise<void> {
    return this.next('released', timeoutMs);
  }

  /** Resolves at the next connection the transport establishes. */
  nextConnect(timeoutMs = 5_000): Promise<void> {
    return this.next('connected', timeoutMs);
  }

  /** Resolves at the next link the lock drops. */
  nextLoss(timeoutMs = 5_000): Promise<void> {
    return this.next('lost', timeoutMs);
  }

  /** Resolves with the next write of `command` (decrypted). */
  nextWrite(command: number, timeoutMs = 5_000): Promise<WrittenNukiMessage> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off('written', listener);
        reject(new Error(`no ${nukiCommandName(command)} written within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = (message: WrittenNukiMessage): void => {
        if (message.command !== command) return;
        clearTimeout(timer);
        this.events.off('written', listener);
        resolve(message);
      };
      this.events.on('written', listener);
    });
  }

  async connect(address: string, profile: GattProfile, options: ConnectOptions): Promise<GattConnection> {
    const connection = await this.inner.connect(address, profile, options);
    this.connects += 1;
    this.events.emit('connected');
    return this.wrap(connection);
  }

  watchAdvertisements(listener: AdvertisementListener): () => void {
    return this.inner.watchAdvertisements(listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private wrap(connection: GattConnection): GattConnection {
    let released = false;
    return {
      address: connection.address,
      get connected() {
        return connection.connected;
      },
      has: (characteristic) => connection.has(characteristic),
      read: (characteristic) => connection.read(characteristic),
      write: async (characteristic, value) => {
        if (characteristic === 'usdio') await this.recordWrite(value, connection);
        await connection.write(characteristic, value);
      },
      onNotification: (listener) => {
        connection.onNotification(listener);
      },
      onDisconnect: (listener) => {
        connection.onDisconnect(() => {
          this.losses += 1;
          this.events.emit('lost');
          listener();
        });
      },
      disconnect: async () => {
        await connection.disconnect();
        if (released) return;
        released = true;
        this.releases += 1;
        this.events.emit('released');
      },
    };
  }

  private async recordWrite(frame: Buffer, connection: GattConnection): Promise<void> {
    const decoded = decodeEncryptedFrame(frame, this.sharedKey);
    const message = { command: decoded.command, payload: decoded.payload };
    await this.beforeWrite?.(message, connection);
    if (this.options.keepHistory !== false) this.written.push(message);
    this.events.emit('written', message);
  }

  private next(event: 'connected' | 'released' | 'lost', timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off(event, listener);
        reject(new Error(`no '${event}' within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = (): void => {
        clearTimeout(timer);
        this.events.off(event, listener);
        resolve();
      };
      this.events.on(event, listener);
    });
  }
}

function describeWritten(message: WrittenNukiMessage): string {
  const name = nukiCommandName(message.command);
  if (message.command !== NukiCommand.requestData || message.payload.length < 2) return name;
  return `${name}(${nukiCommandName(message.payload.readUInt16LE(0))})`;
}
