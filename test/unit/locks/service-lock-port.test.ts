import type { ActivityRecord } from '../../../src/domain/lock-vocabulary.js';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { CommandAccess, CommandPermission } from '../../../src/commands/command-access.js';
import type { CommandEngine } from '../../../src/commands/command-engine.js';
import type { LockChange } from '../../../src/lock-port/lock-port.js';
import { ServiceLockPort } from '../../../src/locks/service-lock-port.js';
import type { LiveLockState, LockRuntime, LockRuntimeChange, LockRuntimeEvents } from '../../../src/locks/lock-runtime.js';
import { silentLogger } from '../../../src/logger.js';

const BACK_DOOR = '5ec0631b-2f59-4805-9c20-29a0e5608353';
const OLIVIA = '11111111-1111-4111-8111-111111111111';
/** Linked to a Nuki authorization but holding no eKey on the lock. */
const ALEX = '22222222-2222-4222-8222-222222222222';

/** The runtime as the port sees it: change events and live state from memory. */
class FakeRuntime extends EventEmitter<LockRuntimeEvents> {
  live: LiveLockState | undefined;
  liveState(): LiveLockState | undefined {
    return this.live;
  }
}

let runtime: FakeRuntime;
let changes: LockChange[];
let permissions: Map<string, CommandPermission>;

beforeEach(() => {
  runtime = new FakeRuntime();
  changes = [];
  permissions = new Map([[OLIVIA, 'usable']]);
  const access: CommandAccess = {
    permissionAt: (userId) => permissions.get(userId) ?? 'none',
    roleAt: () => null,
  };
  const port = new ServiceLockPort({
    runtime: runtime as unknown as LockRuntime,
    engine: {} as unknown as CommandEngine,
    access,
    locks: { list: () => [], findById: () => undefined },
    users: { findByEmail: () => undefined, findById: () => undefined },
    clock: { now: () => 0 },
    logger: silentLogger,
  });
  port.subscribe((change) => changes.push(change));
});

const activity = (record: Partial<ActivityRecord>, performerId: string | null, backlog = false): LockRuntimeChange => ({
  kind: 'activity',
  lockId: BACK_DOOR,
  record: { sequence: 7, action: 'unlock', source: 'tap', credential: null, timestamp: 1_000, ...record },
  backlog,
  event: performerId === null ? null : { id: 'e1', lockId: BACK_DOOR, type: 'unlock', performerId, timestamp: 1_000, value: null },
});

const taps = (): LockChange[] => changes.filter((change) => change.kind === 'tap');

describe('ServiceLockPort arrivals (docs/design.md §5 arrival triggers, §4b linked Nuki authorizations)', () => {
  it('announces a live tap by a linked Nuki authorization as that user\'s, also when the user holds no eKey', () => {
    runtime.emit('change', activity({ actor: "Alex's Watch" }, ALEX));
    runtime.emit('change', activity({ actor: "Olivia's iPhone", sequence: 8, action: 'lock' }, OLIVIA));
    expect(taps()).toEqual([
      { kind: 'tap', lockId: BACK_DOOR, userId: ALEX, action: 'unlock' },
      { kind: 'tap', lockId: BACK_DOOR, userId: OLIVIA, action: 'lock' },
    ]);
  });

  it('announces an eKey tap only when the key was usable at that moment', () => {
    runtime.emit('change', activity({ credential: 'aaaaaaaa-0000-4000-8000-000000000001' }, OLIVIA));
    permissions.set(OLIVIA, 'not_usable');
    runtime.emit('change', activity({ credential: 'aaaaaaaa-0000-4000-8000-000000000001', sequence: 8 }, OLIVIA));
    expect(taps()).toEqual([{ kind: 'tap', lockId: BACK_DOOR, userId: OLIVIA, action: 'unlock' }]);
  });

  it('announces nothing for an unlinked authorization, a read-back record, or a move that is not a tap', () => {
    runtime.emit('change', activity({ actor: "Guest's Android" }, null));
    runtime.emit('change', activity({ actor: "Olivia's iPhone" }, OLIVIA, true));
    runtime.emit('change', activity({ source: 'manual' }, OLIVIA));
    runtime.emit('change', activity({ source: 'fob' }, null));
    expect(taps()).toEqual([]);
  });

  it('gives the bolt the source a record names once the log explains it (a Nuki reads state before log)', () => {
    runtime.live = { boltState: 'unlocked', onlineStatus: 'online', moving: false, batteryLevel: 1, lastSeenAt: 0, snapshot: undefined };
    // The state read came first, without a source.
    runtime.emit('change', { kind: 'bolt', lockId: BACK_DOOR, bolt: 'unlocked', source: null });
    runtime.emit('change', activity({ actor: "Olivia's iPhone" }, OLIVIA));
    // A record of an older move (the bolt is elsewhere now) says nothing about the present.
    runtime.emit('change', activity({ source: 'manual', action: 'lock', sequence: 6 }, null, true));
    expect(changes.filter((change) => change.kind === 'bolt')).toEqual([
      { kind: 'bolt', lockId: BACK_DOOR, bolt: 'unlocked', source: null },
      { kind: 'bolt', lockId: BACK_DOOR, bolt: 'unlocked', source: 'tap' },
    ]);
    // The bolt (with its source) comes before the arrival, as for every tap.
    expect(changes.slice(1).map((change) => change.kind)).toEqual(['bolt', 'tap']);
  });

  it('gives a later bolt change without a source the source of the record that led there (the log read first)', () => {
    runtime.live = { boltState: 'unlocked', onlineStatus: 'online', moving: false, batteryLevel: 1, lastSeenAt: 0, snapshot: undefined };
    runtime.emit('change', activity({ actor: "Olivia's iPhone", action: 'lock' }, OLIVIA));
    runtime.live = { ...runtime.live, boltState: 'locked' };
    runtime.emit('change', { kind: 'bolt', lockId: BACK_DOOR, bolt: 'locked', source: null });
    // Used once: a later unexplained bolt change stays without a source.
    runtime.emit('change', { kind: 'bolt', lockId: BACK_DOOR, bolt: 'locked', source: null });
    expect(changes.filter((change) => change.kind === 'bolt')).toEqual([
      { kind: 'bolt', lockId: BACK_DOOR, bolt: 'locked', source: 'tap' },
      { kind: 'bolt', lockId: BACK_DOOR, bolt: 'locked', source: null },
    ]);
  });

  it('does not give a bolt change the source of a record that went the other way', () => {
    runtime.live = { boltState: 'locked', onlineStatus: 'online', moving: false, batteryLevel: 1, lastSeenAt: 0, snapshot: undefined };
    runtime.emit('change', activity({ action: 'unlock', source: 'manual' }, null));
    runtime.emit('change', { kind: 'bolt', lockId: BACK_DOOR, bolt: 'jammed', source: null });
    expect(changes.filter((change) => change.kind === 'bolt')).toEqual([{ kind: 'bolt', lockId: BACK_DOOR, bolt: 'jammed', source: null }]);
  });

  it('passes door changes on', () => {
    runtime.emit('change', { kind: 'door', lockId: BACK_DOOR, door: 'open' });
    expect(changes).toEqual([{ kind: 'door', lockId: BACK_DOOR, door: 'open' }]);
  });
});
