import type { Clock } from '../domain/clock.js';
import { describeError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import type { WebhookDeliveryRepository } from '../store/webhook-delivery-repository.js';
import type { WebhookRepository } from '../store/webhook-repository.js';
import { wantsEventType } from './webhook-event-types.js';
import { webhookBody, type WebhookEvent } from './webhook-payloads.js';
import type { WebhookAccess } from './webhook-service.js';
import { newDeliveryId } from './webhook-signature.js';

/** Pending deliveries one webhook may hold; past it the oldest are dropped and counted (docs/design.md §11). */
export const MAX_PENDING_PER_WEBHOOK = 1000;
/** Delivered and failed deliveries kept per webhook for its log. */
export const MAX_FINISHED_PER_WEBHOOK = 1000;

export interface WebhookFanoutDependencies {
  webhooks: WebhookRepository;
  deliveries: WebhookDeliveryRepository;
  access: Pick<WebhookAccess, 'roleOn'>;
  clock: Clock;
  logger: Logger;
  transaction: <T>(work: () => T) => T;
  /** Called after new deliveries were stored (the sender tries them at once). */
  stored: () => void;
}

interface Queued {
  webhookId: string;
  event: WebhookEvent;
}

/**
 * Turns each event into one delivery per webhook that wants it — active, asking for its type, for
 * its lock, and owned by someone who owns or administers that lock at that moment — and stores
 * them. Never on the caller's path: `publish` only queues; the deliveries are written together in
 * the next turn of the event loop (one transaction, one fsync), so a command, an event or a
 * HomeKit write never waits for a webhook.
 */
export class WebhookFanout {
  private queue: Queued[] = [];
  private scheduled = false;
  private stopped = false;

  constructor(private readonly deps: WebhookFanoutDependencies) {}

  /** Queues `event` for every webhook that wants it. Never throws. */
  publish(event: WebhookEvent): void {
    if (this.stopped) return;
    try {
      const now = this.deps.clock.now();
      for (const webhook of this.deps.webhooks.listActive()) {
        if (!wantsEventType(webhook.events, event.type)) continue;
        if (webhook.lockIds !== null && !webhook.lockIds.includes(event.lock.id)) continue;
        const role = this.deps.access.roleOn(webhook.ownerId, event.lock.id, now);
        if (role !== 'owner' && role !== 'admin') continue;
        this.queue.push({ webhookId: webhook.id, event });
      }
    } catch (error) {
      this.deps.logger.error(`Webhooks: could not queue a ${event.type} event: ${describeError(error)}`);
      return;
    }
    if (this.queue.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.flush();
      });
    }
  }

  /** Stores what is queued now (also called by `stop`, so nothing queued is lost at a clean stop). */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      const now = this.deps.clock.now();
      this.deps.transaction(() => {
        const touched = new Set<string>();
        // A webhook deleted or disabled since its event was queued gets nothing.
        const active = new Set(this.deps.webhooks.listActive().map((webhook) => webhook.id));
        for (const { webhookId, event } of batch) {
          if (!active.has(webhookId)) continue;
          this.deps.deliveries.insert({
            id: newDeliveryId(),
            webhookId,
            eventType: event.type,
            payload: JSON.stringify(webhookBody(event)),
            createdAt: now,
            nextAttemptAt: now,
          });
          touched.add(webhookId);
        }
        for (const webhookId of touched) {
          const dropped = this.deps.deliveries.trimPending(webhookId, MAX_PENDING_PER_WEBHOOK);
          if (dropped > 0) {
            this.deps.webhooks.addDropped(webhookId, dropped);
            this.deps.logger.warn(`Webhook ${webhookId}: ${dropped} pending deliveries dropped (at most ${MAX_PENDING_PER_WEBHOOK} wait at once).`);
          }
          this.deps.deliveries.trimFinished(webhookId, MAX_FINISHED_PER_WEBHOOK);
        }
      });
    } catch (error) {
      this.deps.logger.error(`Webhooks: could not store ${batch.length} deliveries: ${describeError(error)}`);
      return;
    }
    if (batch.length > 0) this.deps.stored();
  }

  /** Stores what is queued and takes nothing more. */
  stop(): void {
    this.flush();
    this.stopped = true;
  }
}
