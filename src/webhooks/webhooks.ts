import type { Clock } from '../domain/clock.js';
import type { Logger } from '../logger.js';
import type { SqliteDatabase } from '../store/database.js';
import { WebhookDeliveryRepository } from '../store/webhook-delivery-repository.js';
import { WebhookRepository } from '../store/webhook-repository.js';
import { WebhookEventSources, type WebhookSourceDependencies } from './webhook-event-sources.js';
import { WebhookFanout } from './webhook-fanout.js';
import { WebhookSender, type WebhookSenderOptions } from './webhook-sender.js';
import { WebhookService, type WebhookAccess } from './webhook-service.js';

export interface WebhooksDependencies {
  db: SqliteDatabase;
  transaction: <T>(work: () => T) => T;
  clock: Clock;
  logger: Logger;
  access: WebhookAccess;
  /** Where events come from (all but `publish`, which the fan-out is). */
  sources: Omit<WebhookSourceDependencies, 'publish' | 'clock' | 'logger'>;
  sender?: WebhookSenderOptions;
}

/**
 * The webhooks side of the service (docs/design.md §11), assembled: the owners' service the API
 * calls, the event sources, the fan-out that stores one delivery per interested webhook, and the
 * sender. `start` after the API listens; `stop` before the store closes.
 */
export class Webhooks {
  readonly service: WebhookService;
  readonly fanout: WebhookFanout;
  readonly sender: WebhookSender;
  readonly sources: WebhookEventSources;

  constructor(deps: WebhooksDependencies) {
    const webhooks = new WebhookRepository(deps.db);
    const deliveries = new WebhookDeliveryRepository(deps.db);
    this.sender = new WebhookSender({ webhooks, deliveries, clock: deps.clock, logger: deps.logger, transaction: deps.transaction }, deps.sender);
    this.fanout = new WebhookFanout({
      webhooks,
      deliveries,
      access: deps.access,
      clock: deps.clock,
      logger: deps.logger,
      transaction: deps.transaction,
      stored: () => {
        this.sender.wake();
      },
    });
    this.service = new WebhookService({
      webhooks,
      deliveries,
      access: deps.access,
      clock: deps.clock,
      transaction: deps.transaction,
      onRetry: () => {
        this.sender.wake();
      },
    });
    this.sources = new WebhookEventSources({
      ...deps.sources,
      clock: deps.clock,
      logger: deps.logger,
      publish: (event) => {
        this.fanout.publish(event);
      },
    });
  }

  /** Listens for events and sends what is pending (also what an earlier run left). */
  start(): void {
    this.sources.start();
    this.sender.start();
  }

  /** Stops listening, stores what is queued, and waits for the attempts under way. */
  async stop(): Promise<void> {
    this.sources.stop();
    this.fanout.stop();
    await this.sender.stop();
  }
}
