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
import type { DemoLockSecrets } from '../families/lock-family-module.js';
import { DEFAULT_LOCK_FAMILY, familyModule } from '../families/registry.js';
import { ServiceLockPort, type ServiceLockPortDependencies } from './service-lock-port.js';
import { lockDriverFactory } from './lock-drivers.js';
import { linkedUserResolver, userLinksOfConfig } from './lock-user-links.js';
import { LockCredentialSync, type LockCredentialSyncDependencies } from './lock-credential-sync.js';
import { LockRuntime } from './lock-runtime.js';
import { DoorCodeSync, type DoorCodeSyncDependencies } from './door-code-sync.js';
import { chooseTransport, chooseTransportKind, type TransportKindId } from './lock-transport-choice.js';
import type { CompositeTransport } from '../gateway/transports/composite/composite-transport.js';
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
  /** The data folder: the families of paired locks read their credentials there. */
  dataDir?: string;
  /** Door codes (docs/design.md §4c): with them, keypad locks are kept holding their eKeys' codes. */
  doorCodes?: Pick<DoorCodeSyncDependencies, 'doorCodes' | 'ekeys'> & {
    /** The rental stay whose code a holder id is (docs/design.md §12), for the history. */
    stayOfCode?: (holderId: string) => { uid: string; summary: string } | null;
  };
  /** The history's committed events (the event hub): the lock port tells its adapters about them (docs/design.md §11). */
  recordedEvents?: ServiceLockPortDependencies['recordedEvents'];
  /** Told of each door code the lock confirmed set or removed, or that failed (the webhooks' `door_code.*`). */
  doorCodeOutcomes?: DoorCodeSyncDependencies['outcomes'];
}

/** Parts the composition root puts in place of production ones (demo mode). */
export interface LockSubsystemOverrides {
  /** Reaches the locks instead of the configured Bluetooth transport (the demo's simulated locks). */
  transport?: GattTransport;
  /** The secrets of simulated locks (what pairing would have stored), which their families' drivers ask before the data folder. */
  demoSecrets?: (address: string) => DemoLockSecrets | undefined;
  /** Links of lock-side users beside the config's (lock id → user name → e-mail): the demo household's. */
  userLinks?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Link timings instead of the production ones (a demo lock shows offline within seconds). */
  linkTimings?: { offlineAfterS: number; presenceCheckIntervalMs: number; reconnectBackoff: Partial<BackoffPolicy> };
  /** `ready()` waits (at most 5 s) until every lock with a gateway connection is reachable. */
  awaitReachable?: boolean;
  /** The default transport when config `bluetooth.transport` names none (`simulator` in the demo). */
  defaultTransport?: TransportKindId;
  /** Radios standing for configured Bluetooth proxies, by proxy name (tests); the others are opened from the config. */
  proxyRadios?: ReadonlyMap<string, GattTransport>;
}

/**
 * The lock side of the service, assembled: runtime (gateway + stored lock state), command engine,
 * the credential and door-code syncs, and the lock port HomeKit and Matter use. It knows no
 * family and no demo: drivers come from the families' modules, and demo mode hands its parts in
 * as {@link LockSubsystemOverrides}. The composition root (service-root.ts) creates one, starts it
 * after the HTTP server and stops it before closing the store.
 */
export class LockSubsystem {
  private port: ServiceLockPort | undefined;
  private started = false;

  constructor(
    readonly runtime: LockRuntime,
    readonly engine: CommandEngine,
    readonly access: CommandAccess,
    /** Every gateway device (the host's adapter, the Bluetooth proxies) as one transport: what `GET /gateways` reads. */
    readonly gateways: CompositeTransport,
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
    // Proxies are reached from the start, so their state and what they hear are known before any command.
    this.gateways.start();
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
      ...(this.deps.recordedEvents === undefined ? {} : { recordedEvents: this.deps.recordedEvents }),
      commandOrigin: (commandId) => this.deps.commands.findById(commandId)?.origin,
    });
    return this.port;
  }
}

/** docs/design.md §4c: the eKey whose door code has this id on the lock (a code that was removed has none). */
function keypadKeyResolver(doorCodes: DoorCodeSyncDependencies['doorCodes']): (lockId: string, keypadCodeId: number) => string | null {
  return (lockId, keypadCodeId) => doorCodes.findByLockCodeId(lockId, keypadCodeId)?.ekeyId ?? null;
}

/**
 * The config's links of lock-side users to our users (each lock's family reads its own entry,
 * e.g. a Nuki's `nuki_users`), and the overrides' links (the demo household's).
 */
function userLinks(deps: LockSubsystemDependencies): Map<string, ReadonlyMap<string, string>> {
  const table = userLinksOfConfig(deps.config, (entry) => familyModule(entry.family ?? DEFAULT_LOCK_FAMILY)?.userLinks?.(entry));
  for (const [lockId, links] of deps.overrides?.userLinks ?? []) table.set(lockId, links);
  return table;
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
  const transport = chooseTransport({
    host: deps.transport ?? overrides.transport,
    kind,
    adapter: bluetooth?.adapter,
    useHostAdapter: bluetooth?.use_host_adapter,
    proxies: bluetooth?.proxies,
    proxyRadios: overrides.proxyRadios,
    allowedGateways: allowedGatewaysOf(deps),
    clock: deps.clock,
    logger: deps.logger,
  });
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
      driverFor: lockDriverFactory({
        dataDir: deps.dataDir,
        logger: deps.logger,
        ...(overrides.demoSecrets === undefined ? {} : { demoSecrets: overrides.demoSecrets }),
      }),
      linkedUser: linkedUserResolver(userLinks(deps), deps.users),
      ...(deps.doorCodes === undefined ? {} : { keypadKey: keypadKeyResolver(deps.doorCodes.doorCodes) }),
      ...(deps.doorCodes?.stayOfCode === undefined ? {} : { stayOfCode: deps.doorCodes.stayOfCode }),
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
          doorCodes: deps.doorCodes.doorCodes,
          ekeys: deps.doorCodes.ekeys,
          locks: deps.locks,
          gateway: runtime.gateway,
          clock: deps.clock,
          logger: deps.logger,
          ...(deps.ekeyChanges === undefined ? {} : { changes: deps.ekeyChanges }),
          ...(deps.doorCodeOutcomes === undefined ? {} : { outcomes: deps.doorCodeOutcomes }),
        });
  return new LockSubsystem(runtime, engine, access, transport, deps, credentialSync, doorCodeSync);
}

/**
 * Config `locks[].gateways` (docs/design.md §4e) by lock address: the gateways that may serve
 * each lock. A name no gateway has is said once; a lock whose list names none that exists is
 * reached by none (the list restricts, it does not suggest).
 */
function allowedGatewaysOf(deps: LockSubsystemDependencies): ((address: string) => readonly string[] | undefined) | undefined {
  const bluetooth = deps.config.bluetooth;
  const proxies = bluetooth?.proxies ?? [];
  const known = new Set([...(bluetooth?.use_host_adapter === false && proxies.length > 0 ? [] : ['host']), ...proxies.map((proxy) => proxy.name)]);
  const byAddress = new Map<string, readonly string[]>();
  for (const lock of deps.config.locks ?? []) {
    const gateways = lock.gateways;
    if (gateways === undefined || gateways.length === 0 || lock.address === undefined) continue;
    const unknown = gateways.filter((name) => !known.has(name));
    if (unknown.length > 0) deps.logger.warn(`Lock "${lock.name}": locks[].gateways names ${unknown.map((name) => `"${name}"`).join(', ')}, which no gateway is called (known: ${[...known].join(', ')}).`);
    byAddress.set(lock.address.toUpperCase(), gateways);
  }
  return byAddress.size === 0 ? undefined : (address) => byAddress.get(address.toUpperCase());
}
