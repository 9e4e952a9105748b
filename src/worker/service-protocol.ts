import type { BoltTarget } from '../domain/lock-vocabulary.js';
import type { LockCommandType } from '../domain/lock-command-type.js';
import type { PluginConfig } from '../config/plugin-config.js';
import type { DemoLine } from '../homebridge/embedded-service.js';
import type { CommandResult, PortCommandOptions, PortLock, PortUser, LockChange } from '../lock-port/lock-port.js';

/*
 * The messages between Homebridge's main thread and the worker thread that runs the embedded
 * service (docs/architecture.md "Threads"). Every message is a plain, structured-clonable object;
 * one MessagePort carries them in order, so a change posted after a reply is seen after it.
 */

/** What the worker opens the service with (`workerData`). Functions do not cross threads. */
export interface WorkerServiceOptions {
  config: PluginConfig;
  dataDir: string;
  demo: boolean;
}

/** Log levels of the Logger interface (src/logger.ts). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** A call the main thread makes; answered by one {@link ReplyMessage} with the same id. */
export type CallRequest =
  | { method: 'listen'; port: number; host: string }
  | { method: 'requestBolt'; lockId: string; target: BoltTarget; asUserId: string; options?: PortCommandOptions }
  | { method: 'requestCommand'; lockId: string; commandType: LockCommandType; asUserId: string; options?: PortCommandOptions }
  | { method: 'control'; line: string }
  /** The demo line's object, answered once every login in it works (undefined outside the demo). */
  | { method: 'demoInfo' }
  | { method: 'close' };

/** Main → worker: the only message the main thread sends. */
export type CallMessage = CallRequest & { type: 'call'; id: number };

/** What `listen` answers: the API's URL and the first snapshot of everything HomeKit reads. */
export interface ListenResult {
  url: string;
  /** Absent when the service offers no HomeKit port. */
  homekit: { locks: PortLock[]; users: WatchedUsers } | undefined;
}

/** The users the platform resolves by e-mail (homekit.user_email, arrival_triggers), by normalized e-mail. */
export type WatchedUsers = Record<string, PortUser | null>;

export type ReplyValue<M extends CallRequest['method']> = M extends 'listen'
  ? ListenResult
  : M extends 'requestBolt' | 'requestCommand'
    ? CommandResult
    : M extends 'control'
      ? string
      : M extends 'demoInfo'
        ? DemoLine | undefined
        : undefined;

/** Worker → main. */
export type WorkerMessage =
  | { type: 'log'; level: LogLevel; message: string }
  /** The service is open (store migrated, config synced); `demoControl`: it has a control handler. */
  | { type: 'opened'; demoControl: boolean }
  /** Opening failed; the worker does nothing more. */
  | { type: 'failed'; error: string }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: string }
  /**
   * A HomeKit change, with the lock as the service sees it right after it (`lock`, null when it
   * is gone) or, for `locks_changed`, every lock.
   */
  | { type: 'change'; change: LockChange; lock?: PortLock | null; locks?: PortLock[] }
  /** The watched users changed (created after start-up, renamed). */
  | { type: 'users'; users: WatchedUsers };

/** The side of a MessagePort or Worker both ends use. */
export interface MessageEndpoint {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/** E-mail as the store compares it. */
export const normalizeWatchedEmail = (email: string): string => email.trim().toLowerCase();

/** The e-mails whose users the platform needs (src/homebridge/ekey-locks-platform.ts). */
export function watchedEmails(config: PluginConfig): string[] {
  const emails = [config.homekit?.user_email, ...(config.homekit?.arrival_triggers ?? [])];
  return [...new Set(emails.filter((email): email is string => typeof email === 'string').map(normalizeWatchedEmail))];
}
