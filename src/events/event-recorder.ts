import type { Clock } from '../domain/clock.js';
import { normalizeId } from '../domain/ids.js';
import { eventShapeOfCommand, type OpenerMode } from '../domain/lock-command-type.js';
import type { LockEventDetail } from '../domain/lock-event-type.js';
import type { Logger } from '../logger.js';
import type { EventRepository, NewEvent, StoredEvent } from '../store/event-repository.js';
import type { EKeyFinder, UsableKeys, UserNames } from './event-access.js';
import { newEventId } from './event-id.js';
import type { LockEventSink, RecordedEvent } from './lock-event-sink.js';

/** The input of {@link LockEventSink.recordActivity}. */
export type ActivityReport = Parameters<LockEventSink['recordActivity']>[0];
/** The input of {@link LockEventSink.recordCommandCompleted}. */
export type CommandCompletedReport = Parameters<LockEventSink['recordCommandCompleted']>[0];
/** The input of {@link LockEventSink.recordBattery}. */
export type BatteryReport = Parameters<LockEventSink['recordBattery']>[0];

/** An Opener mode the service itself switched off (src/commands/opener-mode-guard.ts). */
export interface ModeSwitchedOffReport {
  lockId: string;
  mode: OpenerMode;
  timestamp: number;
}

/** One report of any kind, for {@link EventRecorder.recordBatch}. */
export type SinkReport =
  | ({ kind: 'activity' } & ActivityReport)
  | ({ kind: 'command' } & CommandCompletedReport)
  | ({ kind: 'battery' } & BatteryReport)
  | ({ kind: 'mode_off' } & ModeSwitchedOffReport);

export interface EventRecorderDependencies {
  events: EventRepository;
  /** eKey by id, to attribute a tap to its holder. */
  ekeys: EKeyFinder;
  /** Usability of the holder's key at the instant of the tap. */
  usableKeys: UsableKeys;
  users: UserNames;
  clock: Clock;
  logger: Logger;
  /** Runs `work` in one SQLite transaction (better-sqlite3 `db.transaction`). */
  transaction: <T>(work: () => T) => T;
  /** Called with each event after its transaction committed (the live stream hub). */
  publish: (event: StoredEvent) => void;
  /**
   * Whether a transaction is still open once ours returned: the caller's, which ours nested in as
   * a savepoint (the command engine writes a command's end and its event together). Publishing
   * then waits until that outer transaction is over, and only events that it kept go out.
   */
  inOuterTransaction?: () => boolean;
}

/** Battery levels closer than this are the same level (the lock reports whole percents). */
const BATTERY_EPSILON = 1e-6;

const toRecorded = (event: NewEvent | StoredEvent): RecordedEvent => ({
  id: event.id,
  lockId: event.lockId,
  type: event.type,
  performerId: event.performerId,
  timestamp: event.occurredAt,
  value: event.value,
});

/**
 * Turns what the lock runtime reports into LockEvents (spec §Events rules 1–3, docs/design.md §3 Events),
 * durably: each call is one SQLite transaction (WAL, synchronous=FULL) and returns only after it
 * committed; {@link recordBatch} commits many reports in one transaction (read-back backlogs and
 * the runtime's group commit, src/locks/group-commit.ts). Committed events are then published to the live streams.
 */
export class EventRecorder implements LockEventSink {
  constructor(private readonly deps: EventRecorderDependencies) {}

  /** Taps become lock/unlock events; every other source records nothing (see LockEventSink). */
  recordActivity(input: ActivityReport): RecordedEvent | null {
    return this.recordBatch([{ kind: 'activity', ...input }])[0] ?? null;
  }

  /** A completed remote command becomes one event, performer = requester; again = same event. */
  recordCommandCompleted(input: CommandCompletedReport): RecordedEvent {
    const recorded = this.recordBatch([{ kind: 'command', ...input }])[0];
    if (!recorded) throw new Error(`command ${input.commandId} was not recorded`);
    return recorded;
  }

  /** A battery event only when the level differs from the lock's last recorded one. */
  recordBattery(input: BatteryReport): RecordedEvent | null {
    return this.recordBatch([{ kind: 'battery', ...input }])[0] ?? null;
  }

  /**
   * docs/design.md §4d: an Opener mode the service switched off because the key of whoever switched
   * it on ended, or its time limit passed: a `lock` event with the mode and no performer (source
   * `service`), so only the lock's owners and admins see it.
   */
  recordModeSwitchedOff(input: ModeSwitchedOffReport): RecordedEvent {
    const recorded = this.recordBatch([{ kind: 'mode_off', ...input }])[0];
    if (!recorded) throw new Error(`the switch-off on lock ${input.lockId} was not recorded`);
    return recorded;
  }

  /**
   * Records many reports in one transaction (one fsync), in order; the result at index i is what
   * report i produced. For backlogs read back after a reconnect and for group commit.
   */
  recordBatch(reports: readonly SinkReport[]): (RecordedEvent | null)[] {
    const published: StoredEvent[] = [];
    const results = this.deps.transaction(() => {
      const outcomes = reports.map((report) => {
        const outcome = this.recordOne(report);
        if (outcome?.fresh) published.push(outcome.event);
        return outcome ? toRecorded(outcome.event) : null;
      });
      this.deps.events.countInserted(published);
      return outcomes;
    });
    if (published.length > 0 && this.deps.inOuterTransaction?.() === true) {
      // better-sqlite3 transactions are synchronous: by the next microtask the outer one has
      // committed or rolled back, and only rows that still exist were committed.
      queueMicrotask(() => {
        for (const event of published) if (this.deps.events.exists(event.id)) this.deps.publish(event);
      });
    } else {
      for (const event of published) this.deps.publish(event);
    }
    return results;
  }

  private recordOne(report: SinkReport): { event: StoredEvent; fresh: boolean } | null {
    switch (report.kind) {
      case 'activity':
        return this.activity(report);
      case 'command':
        return this.command(report);
      case 'battery':
        return this.battery(report);
      case 'mode_off':
        return this.insert({
          lockId: normalizeId(report.lockId),
          type: 'lock',
          performerId: null,
          occurredAt: report.timestamp,
          value: null,
          detail: { mode: report.mode },
          source: 'service',
          ekeyId: null,
          commandId: null,
          lockSequence: null,
          flagged: false,
        });
    }
  }

  private activity(report: ActivityReport): { event: StoredEvent; fresh: boolean } | null {
    // Spec §Events rule 2: manual turns, triple-tap and key fobs produce no event; remote moves
    // are recorded from the completed command (with its requester), auto-relock by nobody.
    if (report.ring !== undefined) return this.ring(report, report.ring.opened);
    if (report.keypadRefused === true) return this.keypadRefused(report);
    if (report.booking !== undefined) return this.stayEntry(report, report.booking);
    if (report.source !== 'tap') return null;
    const lockId = normalizeId(report.lockId);
    if (this.deps.events.hasLockSequence(lockId, report.sequence)) return null;
    if (report.actor !== undefined) return this.authorizationTap(lockId, report);

    const credential = report.credential === null ? null : normalizeId(report.credential);
    const key = credential === null ? undefined : this.deps.ekeys.findById(credential);
    const holder = key && normalizeId(key.lock_id) === lockId ? normalizeId(key.user_id) : null;
    const usable = holder !== null && this.deps.usableKeys.usableKeyFor(holder, lockId, report.timestamp)?.id === key?.id;
    if (!usable) {
      const why = credential === null ? 'no credential' : holder === null ? `unknown eKey ${credential}` : `eKey ${credential} not usable then`;
      this.deps.logger.warn(
        `lock ${lockId}: ${report.action} by tap at ${new Date(report.timestamp).toISOString()} with ${why}; recorded and flagged (activity #${report.sequence})`,
      );
    }
    return this.insert({
      lockId,
      type: report.action,
      performerId: holder,
      occurredAt: report.timestamp,
      value: null,
      detail: tapDetail(report),
      source: 'tap',
      ekeyId: credential,
      commandId: null,
      lockSequence: report.sequence,
      flagged: !usable,
    });
  }

  /**
   * docs/design.md §4b: an action by a lock-side authorization (a Nuki app) that the owner linked to one
   * of our users is that user's tap; an unlinked one records nothing, as the spec says for fobs.
   */
  private authorizationTap(lockId: string, report: ActivityReport): { event: StoredEvent; fresh: boolean } | null {
    const linked = report.linkedUserId == null ? null : normalizeId(report.linkedUserId);
    if (linked === null || this.deps.users.findById(linked) === undefined) {
      this.deps.logger.debug(`lock ${lockId}: ${report.action} by the unlinked authorization "${report.actor ?? ''}" (activity #${report.sequence}); no event`);
      return null;
    }
    return this.insert({
      lockId,
      type: report.action,
      performerId: linked,
      occurredAt: report.timestamp,
      value: null,
      detail: tapDetail(report),
      source: 'tap',
      ekeyId: null,
      commandId: null,
      lockSequence: report.sequence,
      flagged: false,
    });
  }

  private command(report: CommandCompletedReport): { event: StoredEvent; fresh: boolean } {
    const existing = this.deps.events.findByCommand(report.commandId);
    if (existing) return { event: existing, fresh: false };
    const { type, ...detail } = eventShapeOfCommand(report.action);
    return this.insert({
      lockId: normalizeId(report.lockId),
      type,
      performerId: normalizeId(report.performerId),
      occurredAt: report.timestamp,
      value: null,
      detail: Object.keys(detail).length === 0 ? null : detail,
      source: 'command',
      ekeyId: null,
      commandId: report.commandId,
      lockSequence: null,
      flagged: false,
    });
  }

  private battery(report: BatteryReport): { event: StoredEvent; fresh: boolean } | null {
    const lockId = normalizeId(report.lockId);
    if (!Number.isFinite(report.level)) {
      this.deps.logger.warn(`lock ${lockId}: ignored a battery report that is not a number`);
      return null;
    }
    const level = Math.min(1, Math.max(0, report.level));
    const last = this.deps.events.lastBatteryLevel(lockId);
    if (last !== undefined && Math.abs(last - level) < BATTERY_EPSILON) return null;
    return this.insert({
      lockId,
      type: 'battery',
      performerId: null,
      occurredAt: report.timestamp,
      value: level,
      detail: null,
      source: 'battery',
      ekeyId: null,
      commandId: null,
      lockSequence: null,
      flagged: false,
    });
  }

  /**
   * docs/design.md §4d: a ring at an Opener is a `ring` event without a performer (so only owners
   * and admins see it), with `"opened": true` when Ring to Open or Continuous Mode opened the door.
   */
  private ring(report: ActivityReport, opened: boolean): { event: StoredEvent; fresh: boolean } | null {
    const lockId = normalizeId(report.lockId);
    if (this.deps.events.hasLockSequence(lockId, report.sequence)) return null;
    return this.insert({
      lockId,
      type: 'ring',
      performerId: null,
      occurredAt: report.timestamp,
      value: null,
      detail: opened ? { opened: true } : null,
      source: 'ring',
      ekeyId: null,
      commandId: null,
      lockSequence: report.sequence,
      flagged: false,
    });
  }

  /**
   * docs/design.md §4c: a code the lock refused at its keypad is a `keypad_refused` event without a
   * performer (so only owners and admins see it) and without the code: someone is trying codes at
   * the door, and the lock's own log says when. Recorded once per log entry, like a tap.
   */
  private keypadRefused(report: ActivityReport): { event: StoredEvent; fresh: boolean } | null {
    const lockId = normalizeId(report.lockId);
    if (this.deps.events.hasLockSequence(lockId, report.sequence)) return null;
    return this.insert({
      lockId,
      type: 'keypad_refused',
      performerId: null,
      occurredAt: report.timestamp,
      value: null,
      detail: null,
      source: 'keypad',
      ekeyId: null,
      commandId: null,
      lockSequence: report.sequence,
      flagged: false,
    });
  }

  /**
   * docs/design.md §12: a keypad entry with a rental stay's door code: a lock/unlock event without a
   * performer (owners and admins see it), `via: keypad` and the stay. Recorded once per log entry.
   */
  private stayEntry(report: ActivityReport, booking: { uid: string; summary: string }): { event: StoredEvent; fresh: boolean } | null {
    const lockId = normalizeId(report.lockId);
    if (this.deps.events.hasLockSequence(lockId, report.sequence)) return null;
    return this.insert({
      lockId,
      type: report.action,
      performerId: null,
      occurredAt: report.timestamp,
      value: null,
      detail: { ...(report.unlatched === true ? { unlatched: true as const } : {}), via: 'keypad', booking: { uid: booking.uid, summary: booking.summary } },
      source: 'keypad',
      ekeyId: null,
      commandId: null,
      lockSequence: report.sequence,
      flagged: false,
    });
  }

  private insert(fields: Omit<NewEvent, 'id' | 'performerName' | 'recordedAt'>): { event: StoredEvent; fresh: true } {
    const event: NewEvent = {
      ...fields,
      id: newEventId(),
      performerName: fields.performerId === null ? null : (this.deps.users.findById(fields.performerId)?.name ?? null),
      recordedAt: this.deps.clock.now(),
    };
    const seq = this.deps.events.insert(event);
    return { event: { ...event, seq }, fresh: true };
  }
}

/** What a tap carries beyond the spec's fields: an unlatch, a door code typed at the keypad. */
function tapDetail(report: ActivityReport): LockEventDetail | null {
  if (report.unlatched !== true && report.via === undefined) return null;
  return { ...(report.unlatched === true ? { unlatched: true as const } : {}), ...(report.via === undefined ? {} : { via: report.via }) };
}
