import { describeError } from '../domain/errors.js';
import type { EmbeddedService } from '../homebridge/embedded-service.js';
import type { LockChange, LockPort } from '../lock-port/lock-port.js';
import type { Logger } from '../logger.js';
import type { ServiceOptions } from '../service-options.js';
import {
  normalizeWatchedEmail,
  watchedEmails,
  type CallMessage,
  type LogLevel,
  type MessageEndpoint,
  type WatchedUsers,
  type WorkerMessage,
  type WorkerServiceOptions,
} from './service-protocol.js';

/** How often the worker re-reads the watched users (a user invited after start-up appears within this). */
export const WATCHED_USERS_REFRESH_MS = 1000;

/** Opens the service in this thread; the worker passes openEmbeddedService (src/homebridge/embedded-service.ts). */
export type HostedServiceOpener = (options: ServiceOptions) => Promise<EmbeddedService>;


/**
 * The worker thread's side of the embedded service: opens it with the options from the main
 * thread, answers its calls, forwards HomeKit changes (each with the lock as it is right after)
 * and sends its log lines to the main thread. Also usable in-process over a MessageChannel (tests).
 * Resolves once the service is open (or failed to open, which it reports as `failed`).
 */
export async function hostService(endpoint: MessageEndpoint, options: WorkerServiceOptions, open: HostedServiceOpener): Promise<void> {
  const post = (message: WorkerMessage): void => {
    endpoint.postMessage(message);
  };
  const log =
    (level: LogLevel) =>
    (message: string): void => {
      post({ type: 'log', level, message });
    };
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };

  // Listening from the start keeps the thread alive after a failed open until the main thread
  // ends it (it then reads `failed`, not an unexpected exit).
  const state: { host?: HostedService } = {};
  endpoint.on('message', (message) => {
    const call = message as CallMessage;
    if (state.host) state.host.handle(call);
    else post({ type: 'reply', id: call.id, ok: false, error: 'the service is not open' });
  });
  let service: EmbeddedService;
  try {
    service = await open({ config: options.config, dataDir: options.dataDir, logger, demo: options.demo });
  } catch (error) {
    // The reason is one line for the user; where it came from is for -D (debug) only.
    if (error instanceof Error && error.stack !== undefined) logger.debug(error.stack);
    post({ type: 'failed', error: describeError(error) });
    return;
  }
  state.host = new HostedService(service, options, post, logger);
  post({ type: 'opened', demoControl: service.demoControl?.() !== undefined });
}

class HostedService {
  private port: LockPort | undefined;
  private unsubscribe: (() => void) | undefined;
  private usersTimer: NodeJS.Timeout | undefined;
  private users: WatchedUsers = {};
  private readonly emails: string[];
  private closing: Promise<void> | undefined;
  /** Runs once right after the reply to `listen` (flushes the changes it held back). */
  private afterReply: (() => void) | undefined;

  constructor(
    private readonly service: EmbeddedService,
    options: WorkerServiceOptions,
    private readonly post: (message: WorkerMessage) => void,
    private readonly logger: Logger,
  ) {
    this.emails = watchedEmails(options.config);
  }

  handle(message: CallMessage): void {
    this.answer(message).then(
      (value) => {
        this.post({ type: 'reply', id: message.id, ok: true, value });
        if (message.method !== 'listen') return;
        const after = this.afterReply;
        this.afterReply = undefined;
        after?.();
      },
      (error: unknown) => {
        this.post({ type: 'reply', id: message.id, ok: false, error: describeError(error) });
      },
    );
  }

  private async answer(message: CallMessage): Promise<unknown> {
    switch (message.method) {
      case 'listen':
        return this.listen(message.port, message.host);
      case 'requestBolt': {
        if (!this.port) return { status: 'rejected', reason: 'unavailable' };
        return this.port.requestBolt(message.lockId, message.target, message.asUserId, message.options);
      }
      case 'requestCommand': {
        if (!this.port) return { status: 'rejected', reason: 'unavailable' };
        return this.port.requestCommand(message.lockId, message.commandType, message.asUserId, message.options);
      }
      case 'demoInfo':
        return this.service.demoInfo();
      case 'control': {
        const handler = this.service.demoControl?.();
        if (!handler) throw new Error('this service offers no demo control');
        return handler(message.line);
      }
      case 'close':
        this.closing ??= this.close();
        await this.closing;
        return undefined;
    }
  }

  private async listen(port: number, host: string): Promise<unknown> {
    const url = await this.service.listen(port, host);
    const homekit = this.service.lockPort?.();
    if (!homekit) return { url, homekit: undefined };
    this.port = homekit;
    // Subscribed before the snapshot is read, so no change is lost; a change that happens while
    // the snapshot is read is held back and posted right after the reply (with the lock as it is
    // then), so the main thread never applies an older snapshot over a newer change.
    let held: LockChange[] | undefined = [];
    const forward = (change: LockChange): void => {
      try {
        // Who-and-how events serve the adapters of this thread (MQTT, webhooks); none on Homebridge's
        // thread uses them, so they do not cross (one message less per lock event on its event loop).
        if (change.kind === 'event') return;
        if (change.kind === 'locks_changed') this.post({ type: 'change', change, locks: homekit.listLocks() });
        else this.post({ type: 'change', change, lock: homekit.getLock(change.lockId) ?? null });
      } catch (error) {
        // Never lose a change over the lock read: the main thread patches its mirror from the change.
        this.logger.warn(`HomeKit change ${change.kind} sent without its lock: ${describeError(error)}`);
        this.post({ type: 'change', change });
      }
    };
    this.unsubscribe = homekit.subscribe((change) => {
      if (held) held.push(change);
      else forward(change);
    });
    this.afterReply = () => {
      const changes = held ?? [];
      held = undefined;
      for (const change of changes) forward(change);
    };
    this.users = this.resolveUsers(homekit);
    if (this.emails.length > 0) {
      this.usersTimer = setInterval(() => {
        this.refreshUsers();
      }, WATCHED_USERS_REFRESH_MS);
      this.usersTimer.unref();
    }
    return { url, homekit: { locks: homekit.listLocks(), users: this.users } };
  }

  private resolveUsers(port: LockPort): WatchedUsers {
    const users: WatchedUsers = {};
    for (const email of this.emails) users[normalizeWatchedEmail(email)] = port.resolveUser(email);
    return users;
  }

  private refreshUsers(): void {
    if (!this.port) return;
    try {
      const users = this.resolveUsers(this.port);
      if (JSON.stringify(users) === JSON.stringify(this.users)) return;
      this.users = users;
      this.post({ type: 'users', users });
    } catch (error) {
      this.logger.debug(`HomeKit users not refreshed: ${describeError(error)}`);
    }
  }

  private async close(): Promise<void> {
    if (this.usersTimer) clearInterval(this.usersTimer);
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.service.close();
  }
}
