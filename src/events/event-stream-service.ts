import { ServiceError, describeError } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import type { EventSummary } from '../store/event-repository.js';
import type { EventAudience, EventQueryService } from './event-query-service.js';
import type { LockEventHub } from './lock-event-hub.js';
import { toLockEventJson } from './lock-event-json.js';

/** Where a stream writes: the HTTP response, abstracted so the logic is testable without sockets. */
export interface StreamConnection {
  /** Writes a chunk of the text/event-stream body. */
  write(chunk: string): void;
  /** Bytes written but not yet sent to the client (back-pressure). */
  readonly pendingBytes: number;
  /** Ends the response (idempotent). */
  end(): void;
}

/** Runs `tick` every `ms` until the returned function is called. Injected so tests drive time. */
export type IntervalTimer = (ms: number, tick: () => void) => () => void;

/** The host's timers; unref'd so an open stream never keeps the process alive on its own. */
export const hostIntervalTimer: IntervalTimer = (ms, tick) => {
  const handle = setInterval(tick, ms);
  handle.unref();
  return () => {
    clearInterval(handle);
  };
};

export interface EventStreamServiceDependencies {
  query: EventQueryService;
  hub: LockEventHub;
  logger: Logger;
  /** Heartbeat period (default 15 s): a comment line that keeps proxies from timing the stream out. */
  heartbeatMs?: number;
  timer?: IntervalTimer;
  /** A client this far behind is dropped rather than buffered without bound (default 1 MiB). */
  maxPendingBytes?: number;
  /** Open streams per user (docs/design.md §9: 10) and in all (500); past that, 429. */
  limits?: Partial<StreamLimits>;
  /**
   * How often open streams are checked against their credential (revoked or expired token) and,
   * every second tick, against the caller's view of the lock (default 250 ms: both end within 1 s,
   * docs/design.md §9b). One timer for all streams, running only while one is open.
   */
  sweepMs?: number;
  sweepTimer?: IntervalTimer;
}

/** What a stream was opened with: asked on every sweep whether it still authorizes the stream. */
export interface StreamCredential {
  /** False once the access token is revoked or has expired. */
  stillValid(): boolean;
}

/** How many streams may be open (docs/design.md §9 Limits). */
export interface StreamLimits {
  perUser: number;
  total: number;
  /** Live events held back while a `Last-Event-ID` replay runs; past this the client is dropped. */
  heldEvents: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { perUser: 10, total: 500, heldEvents: 1000 };
/** What a refused stream is told to wait before it tries again (seconds). */
export const STREAM_RETRY_AFTER_S = 30;

/** One open stream; {@link close} is idempotent and releases its listener and timer. */
export interface EventStream {
  readonly audience: EventAudience;
  close(): void;
}

interface OpenStream {
  stream: EventStream;
  credential: StreamCredential | undefined;
}

/**
 * Live lock events as Server-Sent Events (docs/design.md §3 Events › Live): same visibility as the
 * history, one message per event (`id:` = event id, `data:` = LockEvent JSON), `Last-Event-ID`
 * resume (the missed events first, oldest first, then live, with none lost or repeated),
 * heartbeats, and teardown when the client leaves or the service stops.
 */
export class EventStreamService {
  private readonly open = new Map<EventStream, OpenStream>();
  private readonly sweepMs: number;
  private readonly sweepTimer: IntervalTimer;
  private stopSweep: (() => void) | undefined;
  private sweeps = 0;
  private readonly heartbeatMs: number;
  private readonly timer: IntervalTimer;
  private readonly maxPendingBytes: number;
  private readonly limits: StreamLimits;
  /** Open streams per caller id. */
  private readonly perUser = new Map<string, number>();

  constructor(private readonly deps: EventStreamServiceDependencies) {
    this.heartbeatMs = deps.heartbeatMs ?? 15_000;
    this.timer = deps.timer ?? hostIntervalTimer;
    this.maxPendingBytes = deps.maxPendingBytes ?? 1024 * 1024;
    this.limits = { ...DEFAULT_STREAM_LIMITS, ...deps.limits };
    this.sweepMs = deps.sweepMs ?? 250;
    this.sweepTimer = deps.sweepTimer ?? hostIntervalTimer;
  }

  /**
   * The keys of a lock changed (the eKey change notifier, after the commit): every open stream on
   * it whose caller's view is no longer the one it was opened with ends at once — the client
   * reconnects and gets its new view, or a 404 (docs/design.md §9b). Never throws.
   */
  viewChanged(lockId: string): void {
    for (const { stream } of [...this.open.values()]) {
      if (stream.audience.lockId === lockId && !this.sameView(stream.audience)) stream.close();
    }
  }

  /** Whether the caller still has the view of the lock the stream was opened with. */
  private sameView(audience: EventAudience): boolean {
    try {
      return this.deps.query.audience(audience.callerId, audience.lockId).view === audience.view;
    } catch {
      return false;
    }
  }

  /** Whether the stream's credential still holds; a failing check counts as no (the stream ends, the client reconnects). */
  private stillAuthorized(audience: EventAudience, credential: StreamCredential | undefined): boolean {
    try {
      return credential?.stillValid() ?? true;
    } catch (error) {
      this.deps.logger.error(`event stream for lock ${audience.lockId}: authorization check failed, closing: ${describeError(error)}`);
      return false;
    }
  }

  /** One tick of the sweep: credentials every tick, views every second tick (key expiry, schedules). */
  private sweep(): void {
    this.sweeps += 1;
    const checkViews = this.sweeps % 2 === 0;
    for (const { stream, credential } of [...this.open.values()]) {
      let valid: boolean;
      try {
        valid = (credential?.stillValid() ?? true) && (!checkViews || this.sameView(stream.audience));
      } catch (error) {
        this.deps.logger.error(`event stream for lock ${stream.audience.lockId}: authorization check failed, closing: ${describeError(error)}`);
        valid = false;
      }
      if (!valid) stream.close();
    }
  }

  /**
   * Checks, before anything is written, that the caller may see the lock's events (404 otherwise)
   * and that a stream is free for them (429 with Retry-After otherwise, docs/design.md §9).
   */
  authorize(callerId: string, lockId: string): EventAudience {
    const audience = this.deps.query.audience(callerId, lockId);
    this.admit(callerId);
    return audience;
  }

  private admit(callerId: string): void {
    const retry = { 'retry-after': String(STREAM_RETRY_AFTER_S) };
    if ((this.perUser.get(callerId) ?? 0) >= this.limits.perUser) {
      throw new ServiceError(429, 'too_many_streams', `At most ${this.limits.perUser} event streams may be open per user; close one first.`, undefined, retry);
    }
    if (this.open.size >= this.limits.total) {
      throw new ServiceError(429, 'too_many_streams', 'The service has as many event streams open as it serves; try again later.', undefined, retry);
    }
  }

  /** Starts streaming to `connection`; the caller must call `close()` when the client goes away. */
  start(audience: EventAudience, connection: StreamConnection, lastEventId?: string, credential?: StreamCredential): EventStream {
    const { query, hub } = this.deps;
    this.admit(audience.callerId);
    let closed = false;
    let replaying = lastEventId !== undefined;
    let lastSeq = 0;
    const held: EventSummary[] = [];

    const send = (event: EventSummary): void => {
      if (closed || event.seq <= lastSeq || !query.canSee(audience, event)) return;
      // The sweep alone leaves a window of up to sweepMs after a revocation (issue #32, finding 5):
      // the bearer is asked again before every delivery, from the access-token cache that every
      // revocation empties (a lookup in memory, no query).
      if (!this.stillAuthorized(audience, credential)) {
        stream.close();
        return;
      }
      lastSeq = event.seq;
      connection.write(`id: ${event.id}\ndata: ${JSON.stringify(toLockEventJson(event))}\n\n`);
      if (connection.pendingBytes > this.maxPendingBytes) {
        this.deps.logger.warn(`event stream for lock ${audience.lockId}: client too slow, closing`);
        stream.close();
      }
    };

    const unsubscribe = hub.subscribe(audience.lockId, (event) => {
      if (!replaying) {
        send(event);
        return;
      }
      held.push(event);
      if (held.length > this.limits.heldEvents) {
        // Bounded like the socket buffer: the client resumes from its last id with a new request.
        this.deps.logger.warn(`event stream for lock ${audience.lockId}: too many live events during the replay, closing`);
        stream.close();
      }
    });
    const stopHeartbeat = this.timer(this.heartbeatMs, () => {
      // The caller's key may have been revoked or expired since the stream opened.
      try {
        this.deps.query.audience(audience.callerId, audience.lockId);
      } catch {
        stream.close();
        return;
      }
      connection.write(': heartbeat\n\n');
    });

    const stream: EventStream = {
      audience,
      close: () => {
        if (closed) return;
        closed = true;
        held.length = 0;
        unsubscribe();
        stopHeartbeat();
        this.open.delete(stream);
        if (this.open.size === 0) {
          this.stopSweep?.();
          this.stopSweep = undefined;
        }
        const count = (this.perUser.get(audience.callerId) ?? 1) - 1;
        if (count > 0) this.perUser.set(audience.callerId, count);
        else this.perUser.delete(audience.callerId);
        connection.end();
      },
    };
    this.open.set(stream, { stream, credential });
    this.stopSweep ??= this.sweepTimer(this.sweepMs, () => {
      this.sweep();
    });
    this.perUser.set(audience.callerId, (this.perUser.get(audience.callerId) ?? 0) + 1);
    connection.write(': connected\n\n');

    const replayStep = (): void => {
      if (closed || lastEventId === undefined) return;
      let batch: ReturnType<typeof query.replayAfter>;
      try {
        batch = query.replayAfter(audience, lastEventId, lastSeq === 0 ? undefined : lastSeq);
      } catch (error) {
        // Runs from setImmediate too, where a throw would be an uncaught exception in Homebridge.
        // The client reconnects with its Last-Event-ID and the replay starts over from there.
        this.deps.logger.error(`event stream for lock ${audience.lockId}: replay failed, closing: ${describeError(error)}`);
        stream.close();
        return;
      }
      for (const event of batch?.events ?? []) send(event);
      if (batch && !batch.done) {
        // Yield between batches so a long replay never holds the event loop.
        setImmediate(replayStep);
        return;
      }
      replaying = false;
      for (const event of held.splice(0)) send(event);
    };
    if (lastEventId !== undefined) replayStep();
    return stream;
  }

  /** How many streams are open (for leak checks). */
  get openCount(): number {
    return this.open.size;
  }

  /** Ends every open stream (service shutdown). */
  closeAll(): void {
    for (const stream of [...this.open.keys()]) stream.close();
  }
}
