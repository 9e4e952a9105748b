import type { Clock } from '../domain/clock.js';
import { describeError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import type { WebhookDeliveryRecord, WebhookDeliveryRepository } from '../store/webhook-delivery-repository.js';
import type { WebhookRecord, WebhookRepository } from '../store/webhook-repository.js';
import { MAX_ATTEMPTS, nextAttemptAt } from './webhook-retry-schedule.js';
import { signWebhook } from './webhook-signature.js';

/** How long a receiver has to answer one attempt (docs/design.md §11). */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** Attempts in flight at once, in all; one per webhook, so a webhook's deliveries go in order. */
const MAX_IN_FLIGHT = 8;
/** The longest the sender sleeps while deliveries are pending (a clock moved by hand is noticed within it). */
const MAX_SLEEP_MS = 60_000;
/** Bytes of a receiver's answer read at most (it is not kept; reading lets the connection be reused). */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface WebhookSenderOptions {
  /** Per attempt (default {@link DELIVERY_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** The HTTP client (default: Node's fetch). */
  fetch?: typeof fetch;
}

export interface WebhookSenderDependencies {
  webhooks: WebhookRepository;
  deliveries: WebhookDeliveryRepository;
  clock: Clock;
  logger: Logger;
  transaction: <T>(work: () => T) => T;
}

/** What one attempt came to. */
type Attempt = { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

/**
 * Sends the stored deliveries (docs/design.md §11, Standard Webhooks): each attempt a POST of the
 * stored body with `webhook-id` (the delivery's id, the same on every attempt),
 * `webhook-timestamp` (Unix seconds of the attempt) and `webhook-signature`; a 2xx within 15 s
 * delivers it, anything else (a 3xx too: redirects are not followed) fails the attempt, retried on
 * the schedule of webhook-retry-schedule.ts; a `410 Gone` disables the webhook. Everything is in
 * SQLite, so pending deliveries resume after a restart; nothing here runs on a command's path —
 * the sender wakes when deliveries are stored and sleeps until the next one is due.
 */
export class WebhookSender {
  private readonly inFlight = new Set<string>();
  private readonly webhooksInFlight = new Set<string>();
  private readonly attempts = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = true;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(
    private readonly deps: WebhookSenderDependencies,
    options: WebhookSenderOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.fetch = options.fetch ?? fetch;
  }

  /** Starts sending (pending deliveries of an earlier run first). */
  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Looks for due deliveries now (new ones were stored, one was retried, a test moved the clock). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      for (let pass = true; pass; pass = this.again) {
        this.again = false;
        this.startDue();
      }
    } catch (error) {
      this.deps.logger.error(`Webhooks: could not read the pending deliveries: ${describeError(error)}`);
    } finally {
      this.running = false;
    }
    this.sleep();
  }

  /** Stops sending; resolves when the attempts under way have ended (each within its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all([...this.attempts]);
  }

  /** Resolves when no attempt is under way (for tests). */
  async idle(): Promise<void> {
    while (this.attempts.size > 0) await Promise.all([...this.attempts]);
  }

  private startDue(): void {
    const free = MAX_IN_FLIGHT - this.inFlight.size;
    if (free <= 0) return;
    const due = this.deps.deliveries.listDue(this.deps.clock.now(), MAX_IN_FLIGHT * 4);
    let started = 0;
    for (const delivery of due) {
      if (started >= free) break;
      if (this.inFlight.has(delivery.id) || this.webhooksInFlight.has(delivery.webhookId)) continue;
      const webhook = this.deps.webhooks.findById(delivery.webhookId);
      if (webhook === undefined) continue;
      if (webhook.state !== 'active') {
        this.deps.deliveries.failPending(webhook.id, 'the webhook is disabled', this.deps.clock.now());
        continue;
      }
      started += 1;
      this.begin(webhook, delivery);
    }
  }

  private begin(webhook: WebhookRecord, delivery: WebhookDeliveryRecord): void {
    this.inFlight.add(delivery.id);
    this.webhooksInFlight.add(webhook.id);
    const attempt = this.attempt(webhook, delivery)
      .then((outcome) => {
        this.record(webhook, delivery, outcome);
      })
      .catch((error: unknown) => {
        this.deps.logger.error(`Webhook ${webhook.id}: delivery ${delivery.id} could not be recorded: ${describeError(error)}`);
      })
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.webhooksInFlight.delete(webhook.id);
        this.attempts.delete(attempt);
        this.wake();
      });
    this.attempts.add(attempt);
  }

  /** One POST; never rejects. */
  private async attempt(webhook: WebhookRecord, delivery: WebhookDeliveryRecord): Promise<Attempt> {
    const timestamp = Math.floor(this.deps.clock.now() / 1000);
    try {
      const response = await this.fetch(webhook.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'homebridge-ekey-locks-webhooks',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(webhook.secret, delivery.id, timestamp, delivery.payload),
        },
        body: delivery.payload,
      });
      await drain(response);
      if (response.status >= 200 && response.status < 300) return { ok: true, statusCode: response.status };
      return { ok: false, statusCode: response.status, error: `answered ${response.status}` };
    } catch (error) {
      return { ok: false, statusCode: null, error: whyNoAnswer(error, this.timeoutMs) };
    }
  }

  private record(webhook: WebhookRecord, delivery: WebhookDeliveryRecord, attempt: Attempt): void {
    const now = this.deps.clock.now();
    const attempts = delivery.attempts + 1;
    if (attempt.ok) {
      this.deps.deliveries.recordAttempt(delivery.id, { status: 'delivered', statusCode: attempt.statusCode, error: null, nextAttemptAt: null, at: now });
      return;
    }
    if (attempt.statusCode === 410) {
      // Standard Webhooks: 410 Gone means the receiver wants no more; the owner can retry by hand.
      this.deps.transaction(() => {
        this.deps.deliveries.recordAttempt(delivery.id, { status: 'failed', statusCode: 410, error: attempt.error, nextAttemptAt: null, at: now });
        this.deps.webhooks.setState(webhook.id, 'disabled', 'the receiver answered 410 Gone', now);
        this.deps.deliveries.failPending(webhook.id, 'the webhook is disabled', now);
      });
      this.deps.logger.warn(`Webhook ${webhook.id} (${hostOf(webhook.url)}) answered 410 Gone: disabled; its pending deliveries are not sent.`);
      return;
    }
    const next = attempts >= MAX_ATTEMPTS ? null : nextAttemptAt(attempts, now);
    this.deps.deliveries.recordAttempt(delivery.id, {
      status: next === null ? 'failed' : 'pending',
      statusCode: attempt.statusCode,
      error: attempt.error,
      nextAttemptAt: next,
      at: now,
    });
    if (next === null) this.deps.logger.warn(`Webhook ${webhook.id} (${hostOf(webhook.url)}): delivery ${delivery.id} failed after ${attempts} attempts (${attempt.error}).`);
    else this.deps.logger.debug(`Webhook ${webhook.id} (${hostOf(webhook.url)}): delivery ${delivery.id} ${attempt.error}; trying again at ${new Date(next).toISOString()}.`);
  }

  /** Sleeps until the next pending delivery is due (at most a minute at a time). */
  private sleep(): void {
    if (this.stopped) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    let next: number | null;
    try {
      next = this.deps.deliveries.nextDueAt();
    } catch {
      next = this.deps.clock.now() + MAX_SLEEP_MS;
    }
    if (next === null) return;
    const delay = Math.min(MAX_SLEEP_MS, Math.max(0, next - this.deps.clock.now()));
    // Due now but all slots are busy: the end of an attempt wakes the sender.
    if (delay === 0 && this.inFlight.size > 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, Math.max(delay, 10));
    this.timer.unref();
  }
}

/** Reads (and drops) at most {@link MAX_ANSWER_BYTES} of the answer, so the connection can serve the next attempt. */
async function drain(response: Response): Promise<void> {
  const body = response.body;
  if (body === null) return;
  let read = 0;
  try {
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      read += chunk.byteLength;
      // Leaving the loop cancels the rest of the answer.
      if (read > MAX_ANSWER_BYTES) return;
    }
  } catch {
    // The answer's status is what counts.
  }
}

/** Why an attempt got no answer, in words for the delivery log (never the URL's secrets). */
function whyNoAnswer(error: unknown, timeoutMs: number): string {
  const budget = `${timeoutMs >= 1000 ? Math.round(timeoutMs / 1000) : timeoutMs / 1000} s`;
  // Read by shape, not by class: fetch's errors may come from another realm than this module's Error.
  const fields = (value: unknown): { name?: unknown; code?: unknown; cause?: unknown } => (typeof value === 'object' && value !== null ? value : {});
  const name = fields(error).name;
  if (name === 'TimeoutError' || name === 'AbortError') return `no answer within ${budget}`;
  const nested = fields(error).cause;
  const cause = typeof nested === 'object' && nested !== null ? nested : error;
  const code = typeof fields(cause).code === 'string' ? String(fields(cause).code) : '';
  switch (code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name could not be resolved';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before an answer';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return `no answer within ${budget}`;
    default:
      return code.startsWith('ERR_TLS') || code.includes('CERT') ? `the TLS handshake failed (${code})` : `no answer (${describeError(cause)})`;
  }
}

/** The host of a URL, for a log line (its path and query may carry a token of the receiver's). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid address';
  }
}
