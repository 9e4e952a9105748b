import type { DemoControlHandler } from '../homebridge/demo-control-channel.js';
import type { EmbeddedService } from '../homebridge/embedded-service.js';
import type { LockPort } from '../lock-port/lock-port.js';
import type { Logger } from '../logger.js';
import { RemoteLockPort } from './remote-lock-port.js';
import type { CallRequest, ListenResult, MessageEndpoint, ReplyValue, WorkerMessage } from './service-protocol.js';

/** The service's thread is gone or never answered: calls fail with this. */
export class ServiceUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServiceUnavailableError';
  }
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * The embedded service as seen from Homebridge's main thread, over a message endpoint (the
 * worker, or one end of a MessageChannel in tests). It implements the platform's EmbeddedService:
 * `listen`, `close` and demo control lines are calls to the worker; the HomeKit port is a
 * {@link RemoteLockPort} mirror; the worker's log lines go to `logger`.
 *
 * Never throws into Homebridge on its own: when the worker goes away ({@link gone}), pending calls
 * reject with {@link ServiceUnavailableError} (the port turns that into `unavailable`).
 */
export class ServiceClient implements EmbeddedService {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly port: RemoteLockPort;
  private info: ListenResult | undefined;
  private hasDemoControl = false;
  private goneReason: string | undefined;
  private readonly opened: Promise<void>;
  private settleOpen: { resolve: () => void; reject: (error: Error) => void } | undefined;

  constructor(
    private readonly endpoint: MessageEndpoint,
    private readonly logger: Logger,
  ) {
    this.port = new RemoteLockPort(
      (lockId, commandType, asUserId, options) => this.call({ method: 'requestCommand', lockId, commandType, asUserId, ...(options === undefined ? {} : { options }) }),
      logger,
    );
    this.opened = new Promise<void>((resolve, reject) => {
      this.settleOpen = { resolve, reject };
    });
    // Nobody may be waiting yet: a failure is reported through whenOpened().
    this.opened.catch(() => undefined);
    endpoint.on('message', (message) => {
      this.receive(message as WorkerMessage);
    });
  }

  /** Resolves once the worker has opened the service; rejects with its error. */
  whenOpened(): Promise<void> {
    return this.opened;
  }

  async listen(port: number, host: string): Promise<string> {
    const result = await this.call({ method: 'listen', port, host });
    this.info = result;
    if (result.homekit) this.port.applySnapshot(result.homekit.locks, result.homekit.users);
    return result.url;
  }

  /** The demo line's object, once the service says every login in it works. */
  demoInfo(): Promise<ReplyValue<'demoInfo'>> {
    return this.call({ method: 'demoInfo' });
  }

  lockPort(): LockPort {
    if (this.info !== undefined && this.info.homekit === undefined) throw new Error('the service offers no HomeKit port');
    return this.port;
  }

  demoControl(): DemoControlHandler | undefined {
    return this.hasDemoControl ? (line) => this.call({ method: 'control', line }) : undefined;
  }

  /** Closes the service in the worker (the caller terminates the worker afterwards). */
  async close(): Promise<void> {
    if (this.goneReason !== undefined) return;
    await this.call({ method: 'close' });
  }

  /** The worker is gone: fail what waits on it, degrade the accessories. Idempotent. */
  gone(reason: string): void {
    if (this.goneReason !== undefined) return;
    this.goneReason = reason;
    this.settleOpen?.reject(new ServiceUnavailableError(reason));
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(new ServiceUnavailableError(reason));
    }
    this.port.markGone();
  }

  /** Why the worker is gone; undefined while it runs. */
  get goneBecause(): string | undefined {
    return this.goneReason;
  }

  private call<M extends CallRequest['method']>(request: CallRequest & { method: M }): Promise<ReplyValue<M>> {
    if (this.goneReason !== undefined) return Promise.reject(new ServiceUnavailableError(this.goneReason));
    const id = this.nextId++;
    return new Promise<ReplyValue<M>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      try {
        this.endpoint.postMessage({ ...request, type: 'call', id });
      } catch (error) {
        this.pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  private receive(message: WorkerMessage): void {
    switch (message.type) {
      case 'log':
        this.log(message.level, message.message);
        break;
      case 'opened':
        this.hasDemoControl = message.demoControl;
        this.settleOpen?.resolve();
        break;
      case 'failed':
        this.settleOpen?.reject(new Error(message.error));
        break;
      case 'reply': {
        const pending = this.pending.get(message.id);
        if (!pending) return;
        this.pending.delete(message.id);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(new Error(message.error));
        break;
      }
      case 'change':
        this.port.applyChange(message.change, message.lock, message.locks);
        break;
      case 'users':
        this.port.applyUsers(message.users);
        break;
    }
  }

  private log(level: string, message: string): void {
    try {
      if (level === 'debug') this.logger.debug(message);
      else if (level === 'warn') this.logger.warn(message);
      else if (level === 'error') this.logger.error(message);
      else this.logger.info(message);
    } catch {
      // A logger that throws must not stop the messages behind it.
    }
  }
}
