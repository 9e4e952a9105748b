import type { ActivitySource, Bolt, BoltTarget } from '../../src/domain/lock-vocabulary.js';
import { boltAfterCommand, type LockCommandType } from '../../src/domain/lock-command-type.js';
import { capabilitiesOf, commandTypesOf } from '../../src/families/registry.js';
import type {
  CommandResult,
  PortLock,
  PortUser,
  LockChange,
  LockChangeListener,
  LockPort,
} from '../../src/lock-port/lock-port.js';
import type { EmbeddedService, EmbeddedServiceOpener } from '../../src/homebridge/ekey-locks-platform.js';

/** One `requestBolt` or `requestCommand` call as the port received it (`target`: where the command leaves the bolt). */
export interface BoltRequest {
  lockId: string;
  target: BoltTarget;
  asUserId: string;
  /** The command type (`lock`/`unlock` for requestBolt). */
  type: LockCommandType;
}

/**
 * How the port answers the next command: `complete` moves the bolt (emitting a `bolt` change with
 * source `remote` first, as the real service does), anything else is returned as is.
 */
export type CommandBehaviour = { kind: 'complete' } | { kind: 'answer'; result: CommandResult } | { kind: 'hold' };

/**
 * A lock with defaults for every field a test does not care about; `family` (our profile by
 * default) gives it that family's commands and capabilities, as the service would.
 */
export function testLock({ family = 'ekey', ...overrides }: Partial<PortLock> & Pick<PortLock, 'id'> & { family?: string }): PortLock {
  const capabilities = capabilitiesOf(family);
  return {
    name: 'Front Door',
    bleAddress: 'D0:E1:00:00:00:01',
    serialNumber: overrides.bleAddress ?? 'D0:E1:00:00:00:01',
    capabilities: { keypad: capabilities.keypad, doorSensor: capabilities.doorSensor, opener: capabilities.opener, boltAssumed: capabilities.boltAssumed === true },
    commands: commandTypesOf(family),
    modes: null,
    ownerId: 'owner-1',
    bolt: 'locked',
    moving: false,
    online: true,
    batteryLevel: 0.9,
    lastActivitySource: null,
    deviceInformation: { manufacturer: 'Open Lock Project', model: 'SIM-1', serial: 'SIM-0001', firmware: '1.0.0' },
    door: null,
    ...overrides,
  };
}

/**
 * The {@link LockPort} in memory, for the platform's unit tests: state is what the test sets,
 * changes are delivered synchronously, commands answer as the test says.
 */
export class InMemoryLockPort implements LockPort {
  readonly requests: BoltRequest[] = [];
  private readonly locks = new Map<string, PortLock>();
  private readonly users: PortUser[] = [];
  private readonly listeners = new Set<LockChangeListener>();
  private behaviour: CommandBehaviour = { kind: 'complete' };
  private readonly held: { request: BoltRequest; resolve: (result: CommandResult) => void }[] = [];
  private commandCounter = 0;

  constructor(locks: PortLock[] = [], users: PortUser[] = []) {
    for (const lock of locks) this.locks.set(lock.id, { ...lock });
    this.users.push(...users);
  }

  listLocks(): PortLock[] {
    return [...this.locks.values()].map((lock) => ({ ...lock }));
  }

  getLock(lockId: string): PortLock | undefined {
    const lock = this.locks.get(lockId);
    return lock ? { ...lock } : undefined;
  }

  subscribe(listener: LockChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  requestBolt(lockId: string, target: BoltTarget, asUserId: string): Promise<CommandResult> {
    return this.requestCommand(lockId, target === 'locked' ? 'lock' : 'unlock', asUserId);
  }

  requestCommand(lockId: string, type: LockCommandType, asUserId: string): Promise<CommandResult> {
    const request = { lockId, target: boltAfterCommand(type), asUserId, type };
    this.requests.push(request);
    const behaviour = this.behaviour;
    switch (behaviour.kind) {
      case 'answer':
        return Promise.resolve(behaviour.result);
      case 'hold':
        return new Promise((resolve) => {
          this.held.push({ request, resolve });
        });
      case 'complete':
        return Promise.resolve().then(() => this.complete(request));
    }
  }

  resolveUser(email: string): PortUser | null {
    return this.users.find((user) => user.email.toLowerCase() === email.toLowerCase()) ?? null;
  }

  /** Sets how later commands are answered. */
  answerCommandsWith(behaviour: CommandBehaviour): void {
    this.behaviour = behaviour;
  }

  /** Completes the oldest held command (moving the bolt) or answers it with `result`. */
  releaseHeld(result?: CommandResult): void {
    const next = this.held.shift();
    if (!next) throw new Error('no held command');
    next.resolve(result ?? this.complete(next.request));
  }

  /** The bolt moved (tap, manual turn, API command, …): state and a `bolt` change. */
  moveBolt(lockId: string, bolt: Bolt, source: ActivitySource | null): void {
    this.update(lockId, { bolt, moving: false, ...(source === null ? {} : { lastActivitySource: source }) });
    this.emit({ kind: 'bolt', lockId, bolt, source });
  }

  setBattery(lockId: string, level: number): void {
    this.update(lockId, { batteryLevel: level });
    this.emit({ kind: 'battery', lockId, level });
  }

  setOnline(lockId: string, online: boolean): void {
    this.update(lockId, { online });
    this.emit({ kind: 'connectivity', lockId, online });
  }

  /** A tap by a key holder: the bolt moves, then the tap change follows (as the service reports them). */
  tap(lockId: string, userId: string, action: 'lock' | 'unlock'): void {
    this.moveBolt(lockId, action === 'lock' ? 'locked' : 'unlocked', 'tap');
    this.emit({ kind: 'tap', lockId, userId, action });
  }

  addLock(lock: PortLock): void {
    this.locks.set(lock.id, { ...lock });
    this.emit({ kind: 'locks_changed' });
  }

  /** The lock was renamed in the config: same id, new name, and the list changed. */
  renameLock(lockId: string, name: string): void {
    this.update(lockId, { name });
    this.emit({ kind: 'locks_changed' });
  }

  removeLock(lockId: string): void {
    this.locks.delete(lockId);
    this.emit({ kind: 'locks_changed' });
  }

  /** Delivers a change to every listener (state is not touched; use the helpers above for that). */
  emit(change: LockChange): void {
    for (const listener of [...this.listeners]) listener(change);
  }

  private complete(request: BoltRequest): CommandResult {
    this.commandCounter += 1;
    this.moveBolt(request.lockId, request.target, 'remote');
    return { status: 'completed', bolt: request.target, commandId: `command-${this.commandCounter}` };
  }

  private update(lockId: string, patch: Partial<PortLock>): void {
    const lock = this.locks.get(lockId);
    if (!lock) throw new Error(`unknown lock ${lockId}`);
    this.locks.set(lockId, { ...lock, ...patch });
  }
}

/** An embedded service around an in-memory port (no HTTP, no store), for the platform's tests. */
export class InMemoryService implements EmbeddedService {
  closed = false;

  constructor(readonly port: InMemoryLockPort) {}

  listen(): Promise<string> {
    return Promise.resolve('http://127.0.0.1:0');
  }

  demoInfo(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  lockPort(): LockPort {
    return this.port;
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

/** An opener that hands the platform this service. */
export function openInMemory(service: InMemoryService): EmbeddedServiceOpener {
  return () => Promise.resolve(service);
}
