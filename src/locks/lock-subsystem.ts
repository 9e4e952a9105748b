import { accessFromKeyService, type CommandAccess, type UsableKeySource } from '../commands/command-access.js';
import { CommandEngine } from '../commands/command-engine.js';
import type { PluginConfig } from '../config/plugin-config.js';
import type { Clock } from '../domain/clock.js';
import type { LockEventSink } from '../events/lock-event-sink.js';
import type { GattTransport } from '../gateway/gatt-transport.js';
import type { LockPort } from '../lock-port/lock-port.js';
import type { Logger } from '../logger.js';
import type { CommandRepository } from '../store/command-repository.js';
import type { LockRepository } from '../store/lock-repository.js';
import type { LockStateRepository } from '../store/lock-state-repository.js';
import type { UserRepository } from '../store/user-repository.js';
import { NukiCredentialFile, type StoredNukiCredentials } from '../families/nuki/nuki-credential-file.js';
import { ServiceLockPort } from './service-lock-port.js';
import { lockDriverFactory } from './lock-drivers.js';
import { nukiUserLinksOfConfig, nukiUserResolver } from '../families/nuki/nuki-user-links.js';
import { LockCredentialSync, type LockCredentialSyncDependencies } from './lock-credential-sync.js';
import { LockRuntime } from './lock-runtime.js';
import { DoorCodeSync, type DoorCodeSyncDependencies } from './door-code-sync.js';
import { chooseTransport, chooseTransportKind, type TransportKindId } from './lock-transport-choice.js';
import type { BackoffPolicy } from '../gateway/reconnect-backoff.js';

/** What {@link createLockSubsystem} needs. */
export interface LockSubsystemDependencies {
  config: PluginConfig;
  clock: Clock;
  logger: Logger;
  locks: LockRepository;
  lockState: LockStateRepository;
  commands: CommandRepository;
  users: Pick<UserRepository, 'findByEmail' | 'findById'>;
  events: LockEventSink;
  /** The eKey service's usable-key answers: who may send commands. */
  keys: UsableKeySource;
  /**
   * What demo mode puts in place of production parts; the composition root builds them
   * (src/demo/demo-lock-parts.ts), so nothing here knows the demo.
   */
  overrides?: LockSubsystemOverrides;
  /** Overrides the transport (tests); otherwise chosen from config `bluetooth.transport`. */
  transport?: GattTransport;
  /** One SQLite transaction around related writes (fewer fsyncs on the command path). */
  transaction?: <T>(work: () => T) => T;
  /**
   * Every key of a lock (the eKey repository): with it, each gateway lock's credential allow-list
   * is kept equal to the keys usable now (src/locks/lock-credential-sync.ts).
   */
  credentialKeys?: LockCredentialSyncDependencies['keys'];
  /** The eKey service's change hook, so a changed key reaches the lock at once. */
  ekeyChanges?: LockCredentialSyncDependencies['changes'];
  /** The data folder: paired Nuki locks' credentials are read from its `nuki-credentials.json`. */
  dataDir?: string;
  /** Door codes (docs/design.md §4c): with them, keypad locks are kept holding their eKeys' codes. */
  doorCodes?: Pick<DoorCodeSyncDependencies, 'doorCodes' | 'ekeys'>;
}

/** Parts the composition root puts in place of production ones (demo mode). */
export interface LockSubsystemOverrides {
  /** Reaches the locks instead of the configured Bluetooth transport (the demo's simulated locks). */
  transport?: GattTransport;
  /** Credentials of simulated Nuki locks, asked before the data folder's file. */
  nukiCredentials?: (address: string) => StoredNukiCredentials | undefined;
  /** Nuki user links beside config `locks[].nuki_users` (lock id → authorization name → e-mail). */
  nukiUserLinks?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Link timings instead of the production ones (a demo lock shows offline within seconds). */
  linkTimings?: { offlineAfterS: number; presenceCheckIntervalMs: number; reconnectBackoff: Partial<BackoffPolicy> };
  /** `ready()` waits (at most 5 s) until every lock with a gateway connection is reachable. */
  awaitReachable?: boolean;
  /** The default transport when config `bluetooth.transport` names none (`simulator` in the demo). */
  defaultTransport?: TransportKindId;
}

/**
 * The lock side of the service, assembled: runtime (gateway + stored lock state), command
 * engine, demo simulation and control, HomeKit port. The composition root (service-root.ts) creates one,
 * starts it after the HTTP server and stops it before closing the store.
 */
export class LockSubsystem {
  private port: ServiceLockPort | undefined;
  private started = false;

  constructor(
    readonly runtime: LockRuntime,
    readonly engine: CommandEngine,
    readonly access: CommandAccess,
    private readonly deps: LockSubsystemDependencies,
    /** Keeps the locks' credential allow-lists in sync with the eKeys (when given credential keys). */
    readonly credentialSync?: LockCredentialSync,
    /** Keeps keypad locks holding their eKeys' door codes (when given door codes). */
    readonly doorCodeSync?: DoorCodeSync,
  ) {}

  /** Connects to the locks (their credential lists set first, so the first connect writes them). Idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.credentialSync?.start();
    this.doorCodeSync?.start();
    this.runtime.start();
  }

  /**
   * With `awaitReachable` (the demo's simulated locks): resolves once the locks with a gateway
   * connection are online (at most 5 s), so the demo line is printed when commands can be sent.
   * Elsewhere: at once (real locks connect in the background; they may be far away).
   */
  async ready(): Promise<void> {
    if (this.deps.overrides?.awaitReachable !== true) return;
    if (!(await this.runtime.untilAllReachable(5_000))) this.deps.logger.warn('Not every demo lock came online within 5 s.');
  }

  /** Ends unfinished commands as interrupted, then disconnects every lock. Idempotent. */
  async stop(): Promise<void> {
    this.credentialSync?.stop();
    this.doorCodeSync?.stop();
    this.engine.stop();
    this.port?.close();
    await this.runtime.stop();
  }

  /** The HomeKit port on this runtime (one instance). */
  lockPort(): LockPort {
    this.port ??= new ServiceLockPort({
      runtime: this.runtime,
      engine: this.engine,
      access: this.access,
      locks: this.deps.locks,
      users: this.deps.users,
      clock: this.deps.clock,
      logger: this.deps.logger,
    });
    return this.port;
  }
}

/** docs/design.md §4c: the eKey whose door code has this id on the lock (a code that was removed has none). */
function keypadKeyResolver(doorCodes: DoorCodeSyncDependencies['doorCodes']): (lockId: string, keypadCodeId: number) => string | null {
  return (lockId, keypadCodeId) => doorCodes.findByLockCodeId(lockId, keypadCodeId)?.ekeyId ?? null;
}

/** `locks[].nuki_users` of the config, and the overrides' links (the demo household's). */
function nukiUserLinks(deps: LockSubsystemDependencies): Map<string, ReadonlyMap<string, string>> {
  const table: Map<string, ReadonlyMap<string, string>> = nukiUserLinksOfConfig(deps.config);
  for (const [lockId, links] of deps.overrides?.nukiUserLinks ?? []) table.set(lockId, links);
  return table;
}

/**
 * Paired Nuki locks' credentials: a simulated Nuki's from the overrides (the demo's); every other
 * Nuki (also one configured next to the demo) from the data folder's file, read once, at the first
 * lock that needs it (a small file, at start, never on a command's path). Without a data folder: none.
 */
function nukiCredentialSource(deps: LockSubsystemDependencies): (address: string) => StoredNukiCredentials | undefined {
  const dataDir = deps.dataDir;
  let all: Map<string, StoredNukiCredentials> | undefined;
  return (address) => {
    const simulated = deps.overrides?.nukiCredentials?.(address);
    if (simulated !== undefined || dataDir === undefined) return simulated;
    all ??= new NukiCredentialFile(dataDir).readAll();
    return all.get(address.toUpperCase());
  };
}

/**
 * Builds the lock subsystem from the config: transport `simulator` in demo mode and `bluez`
 * otherwise (config `bluetooth.transport` overrides), command timeout `bluetooth.command_timeout_s`
 * (default 15 s), offline after `bluetooth.offline_after_s` (default 120 s; 2 s in the demo).
 * Unfinished commands from before a restart are marked failed/interrupted here.
 */
export function createLockSubsystem(deps: LockSubsystemDependencies): LockSubsystem {
  const bluetooth = deps.config.bluetooth;
  const overrides = deps.overrides ?? {};
  const kind = chooseTransportKind(bluetooth?.transport, overrides.defaultTransport);
  const transport = chooseTransport({ host: deps.transport ?? overrides.transport, kind, adapter: bluetooth?.adapter, logger: deps.logger });
  const timeoutMs = (bluetooth?.command_timeout_s ?? 15) * 1000;
  const runtime = new LockRuntime(
    {
      transport,
      clock: deps.clock,
      logger: deps.logger,
      locks: deps.locks,
      lockState: deps.lockState,
      events: deps.events,
      ...(deps.transaction === undefined ? {} : { transaction: deps.transaction }),
      driverFor: lockDriverFactory({ nukiCredentials: nukiCredentialSource(deps), logger: deps.logger }),
      linkedUser: nukiUserResolver(nukiUserLinks(deps), deps.users),
      ...(deps.doorCodes === undefined ? {} : { keypadKey: keypadKeyResolver(deps.doorCodes.doorCodes) }),
    },
    {
      commandTimeoutMs: timeoutMs,
      offlineAfterS: bluetooth?.offline_after_s ?? overrides.linkTimings?.offlineAfterS ?? 120,
      ...(overrides.linkTimings === undefined
        ? {}
        : { presenceCheckIntervalMs: overrides.linkTimings.presenceCheckIntervalMs, reconnectBackoff: overrides.linkTimings.reconnectBackoff }),
    },
  );
  runtime.registerStoredLocks();
  const access = accessFromKeyService(deps.keys, deps.commands, deps.locks);
  const engine = new CommandEngine(
    {
      commands: deps.commands,
      locks: deps.locks,
      access,
      gateway: runtime,
      events: deps.events,
      clock: deps.clock,
      logger: deps.logger,
      ...(deps.transaction === undefined ? {} : { transaction: deps.transaction }),
    },
    { timeoutMs },
  );
  engine.recoverInterrupted();
  const credentialSync =
    deps.credentialKeys === undefined
      ? undefined
      : new LockCredentialSync({
          gateway: runtime.gateway,
          locks: deps.locks,
          keys: deps.credentialKeys,
          clock: deps.clock,
          logger: deps.logger,
          ...(deps.ekeyChanges === undefined ? {} : { changes: deps.ekeyChanges }),
        });
  const doorCodeSync =
    deps.doorCodes === undefined
      ? undefined
      : new DoorCodeSync({
          ...deps.doorCodes,
          locks: deps.locks,
          gateway: runtime.gateway,
          clock: deps.clock,
          logger: deps.logger,
          ...(deps.ekeyChanges === undefined ? {} : { changes: deps.ekeyChanges }),
        });
  return new LockSubsystem(runtime, engine, access, deps, credentialSync, doorCodeSync);
}
