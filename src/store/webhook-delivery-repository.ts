import type { SqliteDatabase } from './database.js';

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event for one webhook, with every attempt's outcome so far (docs/design.md §11). */
export interface WebhookDeliveryRecord {
  seq: number;
  /** `msg_…`: the `webhook-id` header of every attempt. */
  id: string;
  webhookId: string;
  eventType: string;
  /** The body exactly as it is signed and sent. */
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** Epoch ms of the next attempt; null once delivered or failed. */
  nextAttemptAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A delivery to store: its first attempt is due at `nextAttemptAt`. */
export type NewWebhookDelivery = Pick<WebhookDeliveryRecord, 'id' | 'webhookId' | 'eventType' | 'payload' | 'createdAt'> & { nextAttemptAt: number };

/** The outcome of one attempt. */
export interface AttemptOutcome {
  status: WebhookDeliveryStatus;
  statusCode: number | null;
  error: string | null;
  nextAttemptAt: number | null;
  at: number;
}

interface DeliveryRow {
  seq: number;
  id: string;
  webhook_id: string;
  event_type: string;
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
}

const toRecord = (row: DeliveryRow): WebhookDeliveryRecord => ({
  seq: row.seq,
  id: row.id,
  webhookId: row.webhook_id,
  eventType: row.event_type,
  payload: row.payload,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * The webhook_deliveries table: the durable queue of the webhook sender and the delivery log the
 * API shows. Bounded per webhook ({@link WebhookDeliveryRepository.trim}).
 */
export class WebhookDeliveryRepository {
  private readonly insertStatement;
  private readonly byIdStatement;
  private readonly pageStatement;
  private readonly dueStatement;
  private readonly nextDueStatement;
  private readonly attemptStatement;
  private readonly retryStatement;
  private readonly failPendingStatement;
  private readonly countPendingStatement;
  private readonly oldestPendingStatement;
  private readonly countFinishedStatement;
  private readonly oldestFinishedStatement;
  private readonly deleteStatement;

  constructor(db: SqliteDatabase) {
    this.insertStatement = db.prepare(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_type, payload, status, attempts, next_attempt_at, created_at, updated_at)
       VALUES (@id, @webhook_id, @event_type, @payload, 'pending', 0, @next_attempt_at, @created_at, @created_at)`,
    );
    this.byIdStatement = db.prepare<[string, string], DeliveryRow>('SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND id = ?');
    this.pageStatement = db.prepare<[string, number], DeliveryRow>('SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?');
    this.dueStatement = db.prepare<[number, number], DeliveryRow>(
      "SELECT * FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, seq LIMIT ?",
    );
    this.nextDueStatement = db
      .prepare<[], number | null>("SELECT MIN(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending'")
      .pluck(true);
    this.attemptStatement = db.prepare(
      `UPDATE webhook_deliveries SET status = @status, attempts = attempts + 1, last_status_code = @status_code, last_error = @error,
         next_attempt_at = @next_attempt_at, updated_at = @at WHERE id = @id AND status = 'pending'`,
    );
    this.retryStatement = db.prepare<[number, number, string, string]>(
      "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, updated_at = ? WHERE webhook_id = ? AND id = ?",
    );
    this.failPendingStatement = db.prepare<[string, number, string]>(
      "UPDATE webhook_deliveries SET status = 'failed', last_error = ?, next_attempt_at = NULL, updated_at = ? WHERE webhook_id = ? AND status = 'pending'",
    );
    this.countPendingStatement = db.prepare<[string], number>("SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending'").pluck(true);
    this.oldestPendingStatement = db
      .prepare<[string, number], number>("SELECT seq FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' ORDER BY seq LIMIT ?")
      .pluck(true);
    this.countFinishedStatement = db
      .prepare<[string], number>("SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = ? AND status IN ('delivered', 'failed')")
      .pluck(true);
    this.oldestFinishedStatement = db
      .prepare<[string, number], number>("SELECT seq FROM webhook_deliveries WHERE webhook_id = ? AND status IN ('delivered', 'failed') ORDER BY seq LIMIT ?")
      .pluck(true);
    this.deleteStatement = db.prepare<[string]>('DELETE FROM webhook_deliveries WHERE seq IN (SELECT value FROM json_each(?))');
  }

  insert(delivery: NewWebhookDelivery): void {
    this.insertStatement.run({
      id: delivery.id,
      webhook_id: delivery.webhookId,
      event_type: delivery.eventType,
      payload: delivery.payload,
      next_attempt_at: delivery.nextAttemptAt,
      created_at: delivery.createdAt,
    });
  }

  find(webhookId: string, id: string): WebhookDeliveryRecord | undefined {
    const row = this.byIdStatement.get(webhookId, id);
    return row === undefined ? undefined : toRecord(row);
  }

  /** A webhook's newest deliveries first. */
  listNewest(webhookId: string, limit: number): WebhookDeliveryRecord[] {
    return this.pageStatement.all(webhookId, limit).map(toRecord);
  }

  /** Pending deliveries due at `now`, the most overdue first. */
  listDue(now: number, limit: number): WebhookDeliveryRecord[] {
    return this.dueStatement.all(now, limit).map(toRecord);
  }

  /** When the next pending delivery is due; null when none is pending. */
  nextDueAt(): number | null {
    return this.nextDueStatement.get() ?? null;
  }

  /** Stores one attempt's outcome; false when the delivery was no longer pending (deleted, retried meanwhile). */
  recordAttempt(id: string, outcome: AttemptOutcome): boolean {
    return (
      this.attemptStatement.run({
        id,
        status: outcome.status,
        status_code: outcome.statusCode,
        error: outcome.error,
        next_attempt_at: outcome.nextAttemptAt,
        at: outcome.at,
      }).changes > 0
    );
  }

  /** Makes a delivery pending again, due at `at` (a manual retry); its attempts so far stay counted. */
  retry(webhookId: string, id: string, at: number): void {
    this.retryStatement.run(at, at, webhookId, id);
  }

  /** Ends every pending delivery of a webhook as failed (it was disabled), saying why. */
  failPending(webhookId: string, why: string, now: number): void {
    this.failPendingStatement.run(why, now, webhookId);
  }

  /** Keeps the newest `limit` pending deliveries of the webhook, removing the oldest; answers how many it removed. */
  trimPending(webhookId: string, limit: number): number {
    return this.trim(this.countPendingStatement, this.oldestPendingStatement, webhookId, limit);
  }

  /** Keeps the newest `limit` delivered or failed deliveries of the webhook, removing the oldest; answers how many it removed. */
  trimFinished(webhookId: string, limit: number): number {
    return this.trim(this.countFinishedStatement, this.oldestFinishedStatement, webhookId, limit);
  }

  private trim(
    count: { get(webhookId: string): number | undefined },
    oldest: { all(webhookId: string, limit: number): number[] },
    webhookId: string,
    limit: number,
  ): number {
    const over = (count.get(webhookId) ?? 0) - limit;
    if (over <= 0) return 0;
    const seqs = oldest.all(webhookId, over);
    this.deleteStatement.run(JSON.stringify(seqs));
    return seqs.length;
  }
}
