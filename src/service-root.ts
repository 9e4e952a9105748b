import { join } from 'node:path';
import { systemClock, type Clock } from './domain/clock.js';
import type { ServiceOptions } from './service-options.js';
import { openDatabase, transactionRunner, type SqliteDatabase } from './store/database.js';
import { UserRepository } from './store/user-repository.js';
import { ClientRepository } from './store/client-repository.js';
import { OAuthTokenRepository } from './store/oauth-token-repository.js';
import { LockRepository } from './store/lock-repository.js';
import { SettingsRepository } from './store/settings-repository.js';
import { UserService } from './access/user-service.js';
import { DoorCodeService } from './access/door-code-service.js';
import { DoorCodeRepository } from './store/door-code-repository.js';
import { EKeyService, type LockHolding } from './access/ekey-service.js';
import { DerivedCache } from './store/derived-cache.js';
import { EKeyChangeNotifier } from './access/ekey-change-notifier.js';
import { LockService } from './access/lock-service.js';
import { InvitationService } from './access/invitation-service.js';
import { SetupService } from './access/setup-service.js';
import { SettingsUiFile } from './store/settings-ui-file.js';
import { DemoFile } from './store/demo-file.js';
import { createInvitationMailer } from './access/invitation-mailer.js';
import { EKeyRepository } from './store/ekey-repository.js';
import { InvitationRepository } from './store/invitation-repository.js';
import { createEventServices, type EventServices } from './events/event-services.js';
import { StoredBearerAuthenticator } from './auth/bearer-authenticator.js';
import { OAuthService } from './auth/oauth-service.js';
import { PasswordCheck } from './auth/password-check.js';
import { PasswordAttemptThrottle } from './auth/password-attempt-throttle.js';
import { TokenHousekeeping } from './auth/token-housekeeping.js';
import { buildApiServer, compileRouteSchemas, type ApiServer } from './api/server.js';
import type { ApiServices } from './api/api-services.js';
import { syncConfig } from './config/config-sync.js';
import { registerWebAppClient } from './auth/web-app-client.js';
import type { PluginConfig } from './config/plugin-config.js';
import type { DemoControl } from './demo/demo-control.js';
import { EventRepository } from './store/event-repository.js';
import { demoKnownPassword, ensureDemoHousehold, type DemoHousehold, type DemoLockSecrets } from './demo/demo-household.js';
import { demoLockParts } from './demo/demo-lock-parts.js';
import type { DemoSimulation } from './demo/demo-locks.js';
import type { LockPort } from './lock-port/lock-port.js';
import { createLockSubsystem, type LockSubsystem } from './locks/lock-subsystem.js';
import { CommandRepository } from './store/command-repository.js';
import { LockStateRepository } from './store/lock-state-repository.js';
import { describeError } from './domain/errors.js';
import { listeningLine, serviceUrls } from './api/host/service-urls.js';
import { systemHostNetwork, type HostNetwork } from './api/host/host-addresses.js';
import { AllowedHosts } from './api/host/allowed-hosts.js';
import { secureDataFolder } from './store/data-folder-permissions.js';
import { removeDemoHousehold } from './demo/demo-removal.js';
import { doorCodeRulesOf, loadFamilyModules } from './families/registry.js';
import { PasswordService } from './access/password-service.js';
import { SmtpPasswordResetMailer } from './access/password-reset-mailer.js';
import { PasswordResetRepository } from './store/password-reset-repository.js';
import { OpenerModeRepository } from './store/opener-mode-repository.js';
import { OpenerModeGuard } from './commands/opener-mode-guard.js';
import { Webhooks } from './webhooks/webhooks.js';
import { MqttLocks } from './mqtt/mqtt-locks.js';
import { mqttSettingsOf } from './mqtt/mqtt-settings.js';
import { DEFAULT_LOW_BATTERY_THRESHOLD } from './lock-port/lock-identity.js';
import { GatewayService, type GatewayDirectory } from './access/gateway-service.js';
import type { CompositeTransport } from './gateway/transports/composite/composite-transport.js';
import { CalendarRepository } from './store/calendar-repository.js';
import { StayCodeHolders } from './calendars/stay-code-holders.js';
import { CalendarService } from './calendars/calendar-service.js';
import { isStayHolder } from './domain/door-code-holder.js';

export const DATABASE_FILE = 'ekey-locks.sqlite';
/** (user, lock) pairs whose role inputs are kept in memory. */
const HOLDINGS_CACHE_LIMIT = 10_000;
export const PACKAGE_VERSION = '0.1.0';
/** Where users of the plugin find help (Home Assistant's device page links it as the origin). */
const SUPPORT_URL = 'https://github.com/homebridge-ekey-locks/homebridge-ekey-locks';

export type { ServiceOptions } from './service-options.js';


export interface Repositories {
  users: UserRepository;
  clients: ClientRepository;
  tokens: OAuthTokenRepository;
  locks: LockRepository;
  settings: SettingsRepository;
  ekeys: EKeyRepository;
  invitations: InvitationRepository;
  doorCodes: DoorCodeRepository;
  /** The Nuki Openers' modes and who set them (docs/design.md §4d). */
  openerModes: OpenerModeRepository;
  /** Rental calendars and their stays (docs/design.md §12). */
  calendars: CalendarRepository;
}

/**
 * The composition root: config → store → services → gateway → HTTP. Homebridge, the CLI and
 * the tests all start the service through this class, so they run the same code.
 */
export class ServiceRoot {
  private server: ApiServer | undefined;
  private url: string | undefined;

  private constructor(
    readonly options: ServiceOptions,
    readonly db: SqliteDatabase,
    readonly clock: Clock,
    readonly repositories: Repositories,
    readonly services: ApiServices,
    readonly demo: { household: DemoHousehold; lockSecrets: DemoLockSecrets[] } | undefined,
    /** The events layer; `events.recorder` is the LockEventSink the lock runtime reports to. */
    readonly events: EventServices,
    /** Gateway, lock state, command engine and the lock port (src/locks/). */
    readonly lockSubsystem: LockSubsystem,
    /** Switches off an Opener mode whose setter's key ended or whose time ran out (docs/design.md §4d). */
    readonly openerModes: OpenerModeGuard,
    /** Webhooks (docs/design.md §11): the owners' service, the fan-out and the sender. */
    readonly webhooks: Webhooks,
    /** Demo mode: the simulated locks and their control lines (docs/design.md §6). */
    private readonly demoParts?: { simulation: DemoSimulation | undefined; control: DemoControl | undefined },
  ) {
    this.housekeeping = new TokenHousekeeping(repositories.tokens, clock, options.logger);
  }

  /** Deletes expired OAuth tokens and codes while the service runs. */
  private readonly housekeeping: TokenHousekeeping;

  /** The demo's simulated locks (demo mode on the simulator transport); undefined otherwise. */
  get demoSimulation(): DemoSimulation | undefined {
    return this.demoParts?.simulation;
  }

  /** The demo's control lines over its simulated locks; undefined outside the demo. */
  get demoControl(): DemoControl | undefined {
    return this.demoParts?.control;
  }

  /** Opens the store, applies migrations, syncs the config and (in demo mode) seeds the household. */
  static async open(options: ServiceOptions): Promise<ServiceRoot> {
    // The families' drivers, pairing and demo locks: the service needs every family its locks may have.
    await loadFamilyModules();
    return ServiceRoot.openNow(options);
  }

  private static openNow(options: ServiceOptions): ServiceRoot {
    const clock = options.clock ?? systemClock;
    // The folder holds every lock's key and the password hashes: private before anything is read (§9b).
    secureDataFolder(options.dataDir, DATABASE_FILE, options.logger);
    const db = openDatabase(join(options.dataDir, DATABASE_FILE));
    try {
      const transaction = transactionRunner(db);
      const repositories: Repositories = {
        users: new UserRepository(db),
        clients: new ClientRepository(db),
        tokens: new OAuthTokenRepository(db),
        locks: new LockRepository(db),
        settings: new SettingsRepository(db),
        ekeys: new EKeyRepository(db),
        invitations: new InvitationRepository(db),
        doorCodes: new DoorCodeRepository(db),
        openerModes: new OpenerModeRepository(db),
        calendars: new CalendarRepository(db),
      };
      const demoOn = options.demo ?? options.config.demo ?? false;
      const demo = demoOn
        ? ensureDemoHousehold({
            ...repositories,
            clock,
            transaction,
            ...(options.demoHistory === false ? {} : { events: new EventRepository(db) }),
          })
        : undefined;
      // Only a service that runs with this config removes the demo; the CLI's tools open the store
      // without one (applyConfig false) and may run beside a demo (docs/design.md §9b).
      if (!demoOn && options.applyConfig !== false) {
        removeDemoHousehold({ db, settings: repositories.settings, clock, logger: options.logger, transaction });
      }
      // The config as it runs: lock entries that cannot run are left out, each lock with its id.
      const config: PluginConfig =
        options.applyConfig === false
          ? options.config
          : syncConfig(options.config, {
              ...repositories,
              clock,
              logger: options.logger,
              transaction,
              keepLockIds: demo?.household.locks.map((lock) => lock.id) ?? [],
            });
      registerWebAppClient(repositories.clients, clock.now());
      const users = new UserService(repositories.users, clock);
      // One change hook for eKey writes and sign-up acceptances: the lock runtime pushes allow-lists from it.
      const ekeyChanges = new EKeyChangeNotifier();
      const invitations = new InvitationService({
        changes: ekeyChanges,
        ...repositories,
        mailer: createInvitationMailer(options.config.smtp, options.logger),
        logger: options.logger,
        clock,
        transaction,
        ...(options.config.api?.public_url === undefined ? {} : { baseUrl: options.config.api.public_url }),
      });
      // Roles are read on every request that touches a lock: cached per (user, lock) until a lock or
      // an eKey is written (docs/architecture.md "Caches").
      const holdings = new DerivedCache<LockHolding>(db, [repositories.locks, repositories.ekeys], { limit: HOLDINGS_CACHE_LIMIT });
      const doorCodeService = new DoorCodeService({
        doorCodes: repositories.doorCodes,
        clock,
        keypadRulesOf: (lockId) => {
          const lock = repositories.locks.findById(lockId);
          return lock === undefined ? undefined : doorCodeRulesOf(lock.family);
        },
      });
      const ekeys = new EKeyService({ ...repositories, invitations, clock, transaction, changes: ekeyChanges, holdings, doorCodeService });
      // docs/design.md §3 Users: owners and admins of a lock see the users holding keys on it.
      users.setVisibility((callerId, targetId) => ekeys.canSeeUser(callerId, targetId));
      const events = createEventServices({
        db,
        clock,
        logger: options.logger,
        access: ekeys,
        ekeys: repositories.ekeys,
        users: repositories.users,
        retention: { maxAgeDays: options.config.events?.max_age_days, maxPerLock: options.config.events?.max_per_lock },
      });
      // A changed view of a lock ends the open streams on it at once (docs/design.md §9b).
      ekeys.onChange((lockId) => {
        events.streams.viewChanged(lockId);
      });
      const locks = new LockService({ ...repositories, clock, offlineAfterS: options.config.bluetooth?.offline_after_s ?? 120 });
      // The demo's locks are wired here and nowhere else: the lock subsystem only sees overrides.
      const lockState = new LockStateRepository(db);
      const commands = new CommandRepository(db);
      const demoLocks =
        demo === undefined ? undefined : demoLockParts(demo, { config, clock, locks: repositories.locks, commands, lockState });
      // The webhooks stand on the lock port, so they are built after it; the door-code sync tells them through this.
      const built: { webhooks?: Webhooks } = {};
      // docs/design.md §12: a rental stay's code on a lock is a door-code holder beside the eKeys.
      const stayCodes = new StayCodeHolders({ calendars: repositories.calendars, doorCodes: repositories.doorCodes, locks: repositories.locks, clock, logger: options.logger });
      const codeHolders = { findById: (id: string) => (isStayHolder(id) ? stayCodes.findById(id) : repositories.ekeys.findById(id)) };
      const lockSubsystem = createLockSubsystem({
        config,
        clock,
        logger: options.logger,
        locks: repositories.locks,
        lockState,
        commands,
        users: repositories.users,
        events: options.eventSink ?? events.recorder,
        keys: ekeys,
        transaction,
        credentialKeys: repositories.ekeys,
        ekeyChanges: ekeys,
        doorCodes: { doorCodes: repositories.doorCodes, ekeys: codeHolders, stayOfCode: (id) => stayCodes.bookingOf(id) },
        dataDir: options.dataDir,
        recordedEvents: events.hub,
        doorCodeOutcomes: (row) => {
          built.webhooks?.sources.doorCodeOutcome(row);
        },
        ...(demoLocks === undefined ? {} : { overrides: demoLocks.overrides }),
      });
      // docs/design.md §3 Locks "online": connected, or heard from within offline_after_s — the gateway knows.
      locks.setPresence((lock) => lockSubsystem.runtime.onlineStatus(lock.id));
      // docs/design.md §4e: which gateway device reaches each lock, for its owners and admins.
      const gateways = new GatewayService({ ...repositories, clock, directory: gatewayDirectory(lockSubsystem.gateways) });
      locks.setGatewayLookup((lock) => gateways.gatewayOf(lock));
      // docs/design.md §4d (issue #32, finding 2): an Opener mode does not outlive the key that set it.
      const openerModes = new OpenerModeGuard({
        modes: repositories.openerModes,
        roles: ekeys,
        keyEnd: (userId, lockId) => repositories.ekeys.findLive(userId, lockId)?.valid_to ?? null,
        changes: ekeys,
        runtime: lockSubsystem.runtime,
        gateway: lockSubsystem.runtime.gateway,
        engine: lockSubsystem.engine,
        events: events.recorder,
        clock,
        logger: options.logger,
      });
      locks.onOpenerSettingsChanged((lockId) => {
        openerModes.reconsider(lockId);
      });
      // docs/design.md §11: owners' webhooks hear of lock events, commands, keys and door codes.
      const webhooks: Webhooks = new Webhooks({
        db,
        transaction,
        clock,
        logger: options.logger,
        access: { lockIds: () => repositories.locks.list().map((lock) => lock.id), roleOn: (userId, lockId, atMs) => ekeys.roleOn(userId, lockId, atMs) },
        sources: {
          port: lockSubsystem.lockPort(),
          commands: lockSubsystem.engine,
          ekeys: ekeyChanges,
          lockName: (lockId) => repositories.locks.findById(lockId)?.name,
          users: repositories.users,
          ekeyHolder: (ekeyId) => repositories.ekeys.findById(ekeyId)?.user_id,
          lowBatteryThreshold: options.config.homekit?.low_battery_threshold ?? DEFAULT_LOW_BATTERY_THRESHOLD,
        },
        ...(options.webhookSender === undefined ? {} : { sender: options.webhookSender }),
      });
      built.webhooks = webhooks;
      const calendars = new CalendarService({
        calendars: repositories.calendars,
        doorCodes: repositories.doorCodes,
        locks: repositories.locks,
        holders: stayCodes,
        roleOn: (userId, lockId, atMs) => ekeys.roleOn(userId, lockId, atMs),
        keypadRulesOf: (lock) => doorCodeRulesOf(lock.family),
        clock,
        logger: options.logger,
        transaction,
        ...(options.calendarFetch === undefined ? {} : { fetch: options.calendarFetch }),
      });
      calendars.onCodesChanged((lockId) => {
        void lockSubsystem.doorCodeSync?.request(lockId, 'change');
      });
      // The demo's users are hashed at their first sign-in, from the passwords the demo prints.
      const passwordCheck = new PasswordCheck({
        users: repositories.users,
        knownPassword: demo === undefined ? undefined : demoKnownPassword(demo.household),
      });
      // One budget of password guesses per account, for sign-in and password change alike.
      const passwordAttempts = new PasswordAttemptThrottle();
      const oauth = new OAuthService({
          clients: repositories.clients,
          users: repositories.users,
          tokens: repositories.tokens,
          clock,
          logger: options.logger,
          accessTokenTtlS: options.config.api?.token_ttl_s ?? 3600,
          issuer: options.config.api?.public_url,
          db,
          passwordCheck,
          passwordAttempts,
        });
      const services: ApiServices = {
        authenticator: new StoredBearerAuthenticator(repositories.tokens, clock),
        oauth,
        users,
        ekeys,
        locks,
        invitations,
        events: events.query,
        eventStreams: events.streams,
        commands: lockSubsystem.engine,
        webhooks: webhooks.service,
        passwords: new PasswordService({
          users: repositories.users,
          tokens: repositories.tokens,
          resets: new PasswordResetRepository(db),
          clock,
          logger: options.logger,
          transaction,
          mailer: options.config.smtp === undefined ? undefined : new SmtpPasswordResetMailer(options.config.smtp),
          passwordCheck,
          passwordAttempts,
          sessions: oauth,
        }),
        gateways,
        calendars,
        setup: new SetupService({
          gateways: () => gateways.summary(),
          calendars: () => calendars.summaries(),
          locks: repositories.locks,
          users: repositories.users,
          invitations,
          onlineStatus: (lockId) => lockSubsystem.runtime.onlineStatus(lockId),
          reported: (lockId) => {
            const snapshot = lockSubsystem.runtime.liveState(lockId)?.snapshot;
            return snapshot === undefined ? undefined : { modes: snapshot.modes, door: snapshot.door };
          },
        }),
      };
      events.retention.start();
      const demoParts = demoLocks === undefined ? undefined : { simulation: demoLocks.simulation, control: demoLocks.controlOver(lockSubsystem) };
      return new ServiceRoot(options, db, clock, repositories, services, demo, events, lockSubsystem, openerModes, webhooks, demoParts);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * Starts the HTTP API; resolves with its base URL, the one for people (docs/design.md §7:
   * `api.public_url`, else an address of this host other devices reach). Logs where it listens,
   * and one actionable line when its links would open on this machine only. Port 0 picks a free port.
   */
  async listen(port = this.options.config.api?.port ?? 8787, host = this.options.config.api?.host ?? '0.0.0.0'): Promise<string> {
    const server = await this.ensureServer();
    await server.listen({ port, host });
    const address = server.server.address();
    const boundPort = typeof address === 'object' && address ? address.port : port;
    const urls = serviceUrls({
      publicUrl: this.options.config.api?.public_url,
      host,
      port: boundPort,
      network: this.network,
      loopbackIntended: this.demo !== undefined,
    });
    this.url = urls.base;
    this.options.logger.info(listeningLine(urls));
    if (urls.problem !== undefined) this.options.logger.warn(urls.problem);
    this.services.invitations.setBaseUrl(this.url);
    // RFC 8414 / RFC 9207: the issuer identifier is the public base URL.
    this.services.oauth.setIssuer(this.url);
    this.services.passwords.setBaseUrl(this.url);
    this.housekeeping.start();
    this.lockSubsystem.start();
    this.openerModes.start();
    this.services.calendars.start();
    await this.lockSubsystem.ready();
    this.webhooks.start();
    await this.startMqtt();
    this.publishForSettingsUi(urls.local, boundPort);
    this.publishDemoFile();
    return this.url;
  }

  private mqttLocks: MqttLocks | undefined;

  /** The MQTT view of the locks, while `mqtt` is configured (docs/design.md §11). */
  get mqtt(): MqttLocks | undefined {
    return this.mqttLocks;
  }

  /** Connects to the broker when `mqtt` is configured; a broker that is not there is tried again, never fatal. */
  private async startMqtt(): Promise<void> {
    const settings = mqttSettingsOf(this.options.config);
    if (settings === undefined || this.mqttLocks !== undefined) return;
    this.mqttLocks = new MqttLocks({
      port: this.lockPort(),
      settings,
      logger: this.options.logger,
      origin: { name: 'homebridge-ekey-locks', sw: PACKAGE_VERSION, url: SUPPORT_URL },
      configurationUrl: () => (this.url === undefined ? undefined : `${this.url}/app/`),
      lowBatteryThreshold: this.options.config.homekit?.low_battery_threshold ?? DEFAULT_LOW_BATTERY_THRESHOLD,
    });
    await this.mqttLocks.start();
  }

  /** This host's name and addresses (the real ones unless a test passes others). */
  private get network(): HostNetwork {
    return this.options.network ?? systemHostNetwork;
  }

  /**
   * Tells the Homebridge UI settings page where the service is (docs/architecture.md "The settings
   * page"). A failure is logged, never fatal: the page then says the service cannot be found.
   */
  private publishForSettingsUi(localUrl: string, port: number): void {
    try {
      new SettingsUiFile(this.options.dataDir).write({
        version: 1,
        base_url: this.url ?? localUrl,
        local_url: localUrl,
        port,
        public_url: this.options.config.api?.public_url !== undefined,
        pid: process.pid,
        started_at: new Date(this.clock.now()).toISOString(),
        setup_token: this.services.setup.token,
      });
      this.publishedForSettingsUi = true;
    } catch (error) {
      this.options.logger.warn(`The settings page cannot find the service: ${describeError(error)}`);
    }
  }

  private publishedForSettingsUi = false;

  /** The demo's JSON also as `demo.json` in the data folder (removed when the demo is off). */
  private publishDemoFile(): void {
    const file = new DemoFile(this.options.dataDir);
    try {
      const info = this.demoInfo();
      if (info === undefined) file.remove();
      else file.write(info);
    } catch (error) {
      this.options.logger.warn(`Cannot write ${file.path}: ${describeError(error)}`);
    }
  }

  /** The generated OpenAPI document of the REST API. */
  async openApiDocument(): Promise<unknown> {
    return (await this.ensureServer()).swagger();
  }

  /**
   * Compiles every route schema the API has not compiled yet (it compiles each at its route's first
   * request); the messages of those that do not compile. For tests.
   */
  async compileRouteSchemas(): Promise<string[]> {
    return compileRouteSchemas(await this.ensureServer());
  }

  private async ensureServer(): Promise<ApiServer> {
    this.server ??= await buildApiServer({
      logger: this.options.logger,
      services: this.services,
      oauthRateLimitPerMinute: this.options.config.api?.oauth_rate_limit_per_minute ?? 60,
      version: PACKAGE_VERSION,
      allowedHosts: new AllowedHosts({
        publicUrl: this.options.config.api?.public_url,
        allowedHosts: this.options.config.api?.allowed_hosts,
        network: this.network,
      }),
      ...(this.options.config.api?.trusted_proxies === undefined ? {} : { trustedProxies: this.options.config.api.trusted_proxies }),
      ...(this.options.observeResponse === undefined ? {} : { observeResponse: this.options.observeResponse }),
      ...(this.options.connectionLimits === undefined ? {} : { connectionLimits: this.options.connectionLimits }),
    });
    return this.server;
  }

  get baseUrl(): string | undefined {
    return this.url;
  }

  /** The HTTP server, for in-process requests (`inject`) and the OpenAPI document. */
  get http(): ApiServer | undefined {
    return this.server;
  }

  /** The lock port every ecosystem adapter stands on, on the real runtime (src/lock-port/lock-port.ts). */
  lockPort(): LockPort {
    return this.lockSubsystem.lockPort();
  }

  /**
   * The demo line's object (docs/design.md §6): base_url first, then the household. Undefined
   * outside the demo and before `listen`; every login it lists works.
   */
  demoInfo(): (DemoHousehold & { base_url: string }) | undefined {
    if (!this.demo || !this.url) return undefined;
    return { base_url: this.url, ...this.demo.household };
  }

  /** Stops accepting requests, lets in-flight ones finish, then closes the store. Idempotent. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    // Live event streams never finish on their own: end them so the server can close.
    this.events.retention.stop();
    this.housekeeping.stop();
    this.events.streams.closeAll();
    if (this.publishedForSettingsUi) new SettingsUiFile(this.options.dataDir).remove(this.services.setup.token);
    this.publishedForSettingsUi = false;
    if (server) await server.close();
    const mqtt = this.mqttLocks;
    this.mqttLocks = undefined;
    await mqtt?.stop();
    await this.webhooks.stop();
    await this.services.calendars.stop();
    this.openerModes.stop();
    await this.lockSubsystem.stop();
    // Stopping the gateway ended any switch-off on its way; its outcome is no longer stored.
    await this.openerModes.settled();
    if (this.db.open) this.db.close();
  }
}

/** The composite transport's view of its gateways, in the words of the access layer (src/access/gateway-service.ts). */
function gatewayDirectory(transport: CompositeTransport): GatewayDirectory {
  return {
    gateways: () =>
      transport.gatewayStatus().map((gateway) => ({
        name: gateway.name,
        state: gateway.radio.state,
        address: gateway.radio.address,
        connectionsFree: gateway.radio.connectionsFree,
        connectionsLimit: gateway.radio.connectionsLimit,
        devices: gateway.devices,
      })),
    routeOf: (address) => transport.routeOf(address),
  };
}
