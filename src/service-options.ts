import type { ConnectionLimits } from './api/connection-limits.js';
import type { PluginConfig } from './config/plugin-config.js';
import type { Clock } from './domain/clock.js';
import type { LockEventSink } from './events/lock-event-sink.js';
import type { Logger } from './logger.js';
import type { HostNetwork } from './api/host/host-addresses.js';
import type { ObservedResponse } from './api/server.js';
import type { WebhookSenderOptions } from './webhooks/webhook-sender.js';
import type { FeedFetchResult, FeedValidators } from './calendars/feed-fetch.js';

/**
 * How the service is opened (src/service-root.ts): by the CLI, by the worker thread inside Homebridge,
 * and by tests. Its own module, so the HomeKit side can name it without importing the service.
 */
export interface ServiceOptions {
  config: PluginConfig;
  /** Folder for the database; Homebridge's storage path + `/ekey-locks` inside Homebridge. */
  dataDir: string;
  logger: Logger;
  clock?: Clock;
  /** Seed (or reopen) the demo household with simulated locks. Defaults to `config.demo`. */
  demo?: boolean;
  /**
   * Whether a newly seeded demo household starts with its week of history (default true,
   * docs/design.md §7). Tests that count a lock's events from zero turn it off.
   */
  demoHistory?: boolean;
  /** Receives lock activity, battery changes and completed commands (default: the event recorder). */
  eventSink?: LockEventSink;
  /**
   * Whether `config` is the configuration to run with (default true): clients, locks and user
   * policies are synced into the store, and locks it no longer names are retired. The CLI's
   * administration commands open the store with no config and pass false.
   */
  applyConfig?: boolean;
  /** This host's name and addresses, for the URLs it hands out and the hosts it answers (default: the real ones). */
  network?: HostNetwork;
  /** Sees every HTTP response as it is sent (tests hold each against docs/openapi.json). */
  observeResponse?: (response: ObservedResponse) => void;
  /** The HTTP server's slow-client timeout and connection cap (internal: tests shorten them). */
  connectionLimits?: Partial<ConnectionLimits>;
  /** The webhook sender's timeout (internal: tests shorten the 15 s). */
  webhookSender?: WebhookSenderOptions;
  /** Fetches rental calendar feeds (internal: tests bound it tighter); default the 10 s / 3 redirects / 2 MB fetch. */
  calendarFetch?: (url: string, validators: FeedValidators) => Promise<FeedFetchResult>;
}
