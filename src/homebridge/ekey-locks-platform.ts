import { DEFAULT_LOW_BATTERY_THRESHOLD } from '../lock-port/lock-identity.js';
import { join } from 'node:path';
import { StartReportFile } from '../store/start-report-file.js';
import type { API, Categories, DynamicPlatformPlugin, Logging, MatterAccessory, PlatformAccessory, PlatformConfig } from 'homebridge';
import type { ServiceOptions } from '../service-options.js';
import { checkPluginConfig, type ConfigCheck, type PluginConfig } from '../config/plugin-config.js';
import type { Logger } from '../logger.js';
import { actingUserResolver } from './acting-user.js';
import { describeError, describeFault } from '../domain/errors.js';
import { openDemoControlFromEnvironment, type DemoControlChannel } from './demo-control-channel.js';
import type { EmbeddedService } from './embedded-service.js';
import { openServiceInWorker } from '../worker/open-service-worker.js';
import type { MatterLocks } from '../matter/matter-locks.js';
import { openMatterLocks } from '../matter/open-matter-locks.js';
import { LockAccessory, type LockAccessorySettings, type LockContext, type LockPlatformAccessory } from '../homekit/lock-accessory.js';
import type { PortLock, PortUser, LockChange, LockPort } from '../lock-port/lock-port.js';
import { PLATFORM_NAME, PLUGIN_NAME } from './platform-name.js';

export type { EmbeddedService } from './embedded-service.js';

/** Adapts Homebridge's log to our Logger (Homebridge's debug only shows with -D). */
const toLogger = (log: Logging): Logger => ({
  debug: (message) => {
    log.debug(message);
  },
  info: (message) => {
    log.info(message);
  },
  warn: (message) => {
    log.warn(message);
  },
  error: (message) => {
    log.error(message);
  },
});

/** HAP's accessory category for door locks (`Categories.DOOR_LOCK`, a const enum we cannot read at run time). */
const DOOR_LOCK_CATEGORY = 6 as unknown as Categories;

/** What makes a config worth starting: demo mode, or at least one lock or client. */
const isConfigured = (config: PluginConfig): boolean =>
  config.demo === true || (config.locks?.length ?? 0) > 0 || (config.clients?.length ?? 0) > 0;

/** Opens the embedded service; tests pass their own to run the platform on an in-memory port. */
export type EmbeddedServiceOpener = (options: ServiceOptions) => Promise<EmbeddedService>;

/** Optional collaborators of the platform (Homebridge passes none). */
export interface PlatformDependencies {
  openService?: EmbeddedServiceOpener;
  /** Where the `EKEY_DEMO` line goes (default: stdout, raw). */
  writeDemoLine?: (line: string) => void;
  /** Builds the Matter side (default: {@link openMatterLocks}; tests shorten its timings). */
  openMatter?: typeof openMatterLocks;
}

/**
 * The Homebridge dynamic platform. It embeds the access service (started after Homebridge has
 * finished launching, stopped on shutdown, data in Homebridge's storage path) and shows every lock
 * as a HomeKit accessory. No error escapes into Homebridge: a fault in one lock's accessory is
 * logged and degrades that accessory; a fault at start-up disables this plugin, never the bridge.
 */
export class EKeyLocksPlatform implements DynamicPlatformPlugin {
  private readonly logger: Logger;
  /** Accessories Homebridge restored from its cache, by UUID, until start-up reconciles them. */
  private readonly cachedAccessories = new Map<string, LockPlatformAccessory>();
  /** Live lock accessories by lock id. */
  private readonly accessories = new Map<string, LockAccessory>();
  private readonly openService: EmbeddedServiceOpener;
  private readonly writeDemoLine: (line: string) => void;
  /** The Matter view of the locks (docs/design.md §5b); undefined without Matter (Homebridge 1, or not enabled). */
  private readonly matterLocks: MatterLocks | undefined;
  private service: EmbeddedService | undefined;
  private port: LockPort | undefined;
  private settings: LockAccessorySettings | undefined;
  private unsubscribe: (() => void) | undefined;
  private controlChannel: DemoControlChannel | undefined;
  private starting: Promise<void> | undefined;
  /** Set once Homebridge shuts down: a start-up still under way stops at its next step. */
  private stopping = false;
  /** Set while a lock entry of the config is left out: its cached accessory must survive the typo. */
  private keepStaleAccessories = false;
  /** The error lines of the start under way (lock entries left out), for the start report. */
  private startProblems: string[] = [];
  /**
   * The config, checked while Homebridge loads the plugin (the validators' one-time compile is then
   * not part of the start after `didFinishLaunching`); undefined if the check itself threw.
   */
  private readonly configCheck: ConfigCheck | undefined;

  constructor(
    private readonly log: Logging,
    private readonly platformConfig: PlatformConfig | undefined,
    private readonly api: API,
    dependencies: PlatformDependencies = {},
  ) {
    this.logger = toLogger(log);
    // The service runs on its own worker thread: its SQLite fsyncs, HTTP and Bluetooth never block
    // Homebridge's event loop (docs/architecture.md "Threads").
    this.openService = dependencies.openService ?? openServiceInWorker;
    this.writeDemoLine = dependencies.writeDemoLine ?? ((line) => process.stdout.write(line));
    this.matterLocks = (dependencies.openMatter ?? openMatterLocks)(api, platformConfig, this.logger);
    try {
      this.configCheck = checkPluginConfig(platformConfig ?? {});
    } catch {
      // Checked again in start(), where a failure is reported like any other.
      this.configCheck = undefined;
    }
    api.on('didFinishLaunching', () => {
      this.starting = this.start().catch(async (error: unknown) => {
        this.log.error(`eKey Locks could not start: ${describeError(error)}`);
        this.reportStart([...this.startProblems, `eKey Locks could not start: ${describeError(error)}`]);
        if (error instanceof Error && error.stack !== undefined) this.log.debug(error.stack);
        // A service opened before the failure (its worker thread, its port) is closed; the bridge runs on.
        const service = this.service;
        this.service = undefined;
        await service?.close().catch((closeError: unknown) => {
          this.log.error(`eKey Locks did not stop cleanly: ${describeError(closeError)}`);
        });
      });
    });
    api.on('shutdown', () => {
      this.stopping = true;
      this.matterLocks?.stop();
      this.stop().catch((error: unknown) => {
        this.log.error(`eKey Locks did not stop cleanly: ${describeError(error)}`);
      });
    });
  }

  /** Homebridge hands back accessories restored from its cache; we only collect them here. */
  configureAccessory(accessory: PlatformAccessory): void {
    this.cachedAccessories.set(accessory.UUID, accessory as LockPlatformAccessory);
  }

  /** Homebridge 2 hands back Matter accessories restored from its cache; collected the same way. */
  configureMatterAccessory(accessory: MatterAccessory): void {
    this.matterLocks?.restore(accessory);
  }

  /** Resolves once start-up after `didFinishLaunching` has finished (or failed and been logged). */
  async whenStarted(): Promise<void> {
    await this.starting;
  }

  /**
   * Records why this start did not bring the service up (the settings page quotes it, docs/design.md
   * §7), or, with `running`, what the running service left out of the config; clears the record
   * when there is nothing to say (`lines` empty).
   */
  private reportStart(lines: readonly string[], running = false): void {
    try {
      const file = new StartReportFile(join(this.api.user.storagePath(), 'ekey-locks'));
      if (lines.length === 0) file.clear();
      else file.write(lines, running);
    } catch {
      // Only a help for the settings page: the log says the same.
    }
  }

  private async start(): Promise<void> {
    const check = this.configCheck ?? checkPluginConfig(this.platformConfig ?? {});
    // docs/design.md §9: what cannot be used is left out with one line each; the rest runs.
    for (const line of check.notes) this.log.info(line);
    for (const line of check.problems) this.log.error(line);
    this.startProblems = [...check.problems];
    if (check.config === undefined) {
      // Only a platform block that is not an object at all. Cached accessories stay.
      const line = `Configuration is not a JSON object; eKey Locks is not started:\n${check.errors.map((e) => `  ${e.field}: ${e.message}`).join('\n')}`;
      this.log.error(line);
      this.reportStart([...this.startProblems, line]);
      return;
    }
    const config = check.config;
    // A typo in one lock entry must not delete the user's automations: while any entry is left
    // out, no cached accessory is removed.
    this.keepStaleAccessories = check.skippedLocks.length > 0;
    if (!isConfigured(config)) {
      this.log.warn('eKey Locks is not configured (no locks, no clients, demo off): nothing to do. See the README to set it up.');
      this.reportStart([...this.startProblems, 'eKey Locks is not configured (no locks, no clients, demo off): nothing to do.']);
      this.reconcileAccessories([]);
      await this.matterLocks?.removeCached();
      return;
    }
    const dataDir = join(this.api.user.storagePath(), 'ekey-locks');
    const demo = config.demo === true;
    this.service = await this.openService({ config, dataDir, logger: this.logger, demo });
    if (this.shuttingDown()) return;
    const url = await this.service.listen(config.api?.port ?? (demo ? 0 : 8787), config.api?.host ?? (demo ? '127.0.0.1' : '0.0.0.0'));
    if (this.shuttingDown()) return;
    // Running: the settings page still shows what was left out of the config, marked as running.
    this.reportStart(this.startProblems, true);
    this.log.info(`Web app: ${url}/app/`);

    this.startHomeKit(config);
    await this.startMatter();
    if (this.shuttingDown()) return;

    // The demo's logins follow the accessories (their passwords are hashed at each first sign-in).
    // The accessories are up: a demo line that cannot come (the thread is gone, which is logged) is
    // a warning, not a failed start.
    const demoInfo = await this.service.demoInfo().catch((error: unknown) => {
      this.log.warn(`The demo's logins are not available: ${describeError(error)}`);
      return undefined;
    });
    if (this.shuttingDown()) return;
    if (demoInfo) {
      await this.openDemoControl();
      // Written raw, once, after the accessories are registered, so the line itself starts with
      // EKEY_DEMO (Homebridge's log adds prefixes) and whoever reads it can pair at once.
      this.writeDemoLine(`EKEY_DEMO ${JSON.stringify(demoInfo)}\n`);
      for (const user of demoInfo.users) this.log.info(`Demo login: ${user.email} / ${user.password} (${user.name})`);
    }
  }

  /** Whether Homebridge has begun shutting down (read after each await of start-up). */
  private shuttingDown(): boolean {
    return this.stopping;
  }

  /** Shows the service's locks in HomeKit and follows their changes. */
  private startHomeKit(config: PluginConfig): void {
    const port = this.service?.lockPort?.();
    if (!port) {
      this.log.warn('This build of the access service offers no HomeKit port: locks are not shown in HomeKit.');
      return;
    }
    this.port = port;
    const configuredEmail = config.homekit?.user_email;
    this.settings = {
      lowBatteryThreshold: config.homekit?.low_battery_threshold ?? DEFAULT_LOW_BATTERY_THRESHOLD,
      actingUserId: actingUserResolver(port, configuredEmail),
      arrivalUsers: this.resolveArrivalUsers(port, config.homekit?.arrival_triggers ?? []),
      unlatch: config.homekit?.unlatch ?? 'off',
    };
    if (configuredEmail !== undefined && port.resolveUser(configuredEmail) === null) {
      this.log.warn(`homekit.user_email ${configuredEmail} is not a known user: HomeKit commands will be refused until it exists.`);
    }
    this.unsubscribe = port.subscribe((change) => {
      this.onChange(change);
    });
    this.reconcileAccessories(port.listLocks());
  }

  /** Shows the same locks as Matter door locks, through the same port and settings as HomeKit. */
  private async startMatter(): Promise<void> {
    if (!this.matterLocks || !this.port || !this.settings) return;
    await this.matterLocks.start(this.port, this.settings);
  }

  private resolveArrivalUsers(port: LockPort, emails: readonly string[]): PortUser[] {
    const users: PortUser[] = [];
    for (const email of emails) {
      const user = port.resolveUser(email);
      if (user === null) {
        this.log.warn(`Arrival trigger for ${email}: no such user; skipped.`);
      } else if (!users.some((known) => known.id === user.id)) {
        users.push(user);
      }
    }
    return users;
  }

  /**
   * Makes the accessories match the locks: restores cached ones, registers new ones, unregisters
   * those whose lock is gone. One lock that fails to build is logged and left out; the rest work.
   */
  private reconcileAccessories(locks: readonly PortLock[]): void {
    const { uuid } = this.api.hap;
    const wanted = new Set<string>();
    const created: LockPlatformAccessory[] = [];
    const restored: LockPlatformAccessory[] = [];
    for (const lock of locks) {
      const accessoryUuid = uuid.generate(lock.id);
      wanted.add(accessoryUuid);
      const live = this.accessories.get(lock.id);
      if (live) {
        this.guard(lock.name, () => {
          live.refresh(lock);
        });
        continue;
      }
      const cached = this.cachedAccessories.get(accessoryUuid);
      const accessory = cached ?? new this.api.platformAccessory<LockContext>(lock.name, accessoryUuid, DOOR_LOCK_CATEGORY);
      accessory.context = { lockId: lock.id };
      const built = this.guard(lock.name, () => this.buildAccessory(accessory, lock, cached !== undefined));
      if (!built) continue;
      this.accessories.set(lock.id, built);
      if (cached) {
        this.cachedAccessories.delete(accessoryUuid);
        restored.push(accessory);
        this.log.info(`Restored HomeKit accessory ${lock.name}`);
      } else {
        created.push(accessory);
        this.log.info(`Added HomeKit accessory ${lock.name}`);
      }
    }

    const stale: LockPlatformAccessory[] = this.keepStaleAccessories ? [] : [...this.cachedAccessories.values()].filter((accessory) => !wanted.has(accessory.UUID));
    for (const [lockId, live] of this.accessories) {
      if (wanted.has(live.accessory.UUID)) continue;
      live.dispose();
      this.accessories.delete(lockId);
      stale.push(live.accessory);
    }
    for (const accessory of stale) {
      this.cachedAccessories.delete(accessory.UUID);
      this.log.info(`Removed HomeKit accessory ${accessory.displayName}: its lock is no longer configured`);
    }

    if (created.length > 0) this.api.registerPlatformAccessories(PLUGIN_NAME, PLATFORM_NAME, created);
    if (restored.length > 0) this.api.updatePlatformAccessories(restored);
    if (stale.length > 0) this.api.unregisterPlatformAccessories(PLUGIN_NAME, PLATFORM_NAME, stale);
  }

  private buildAccessory(accessory: LockPlatformAccessory, lock: PortLock, fromCache: boolean): LockAccessory {
    if (!this.port || !this.settings) throw new Error('HomeKit is not started');
    return new LockAccessory(this.api, accessory, lock, this.port, this.logger, this.settings, fromCache);
  }

  /** Routes one change to its lock's accessory; a fault stays with that accessory. */
  private onChange(change: LockChange): void {
    if (change.kind === 'locks_changed') {
      const port = this.port;
      if (port) this.guard('lock list', () => {
        this.reconcileAccessories(port.listLocks());
      });
      return;
    }
    const accessory = this.accessories.get(change.lockId);
    if (!accessory) return;
    this.guard(accessory.accessory.displayName, () => {
      accessory.apply(change);
    });
  }

  /** Runs work for one accessory; logs and swallows its errors (returns undefined then). */
  private guard<T>(what: string, work: () => T): T | undefined {
    try {
      return work();
    } catch (error) {
      this.log.error(`HomeKit: ${what}: ${describeFault(error)}`);
      return undefined;
    }
  }

  /** The demo control socket (docs/design.md §6), when `EKEY_DEMO_CONTROL` names a path. */
  private async openDemoControl(): Promise<void> {
    this.controlChannel = await openDemoControlFromEnvironment(this.service, this.logger);
  }

  private async stop(): Promise<void> {
    await this.starting;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const accessory of this.accessories.values()) accessory.dispose();
    const channel = this.controlChannel;
    this.controlChannel = undefined;
    await channel?.close();
    const service = this.service;
    this.service = undefined;
    await service?.close();
  }
}
