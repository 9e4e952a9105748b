import type { ConnectionPolicy } from './lock-driver.js';
import { TransportError, type GattConnection, type GattProfile, type GattTransport, type TransportFailure } from './gatt-transport.js';
import type { GatewayLogger } from './gateway-logger.js';
import { backoffDelay, type BackoffPolicy } from './reconnect-backoff.js';
import { describeError } from '../domain/errors.js';

/** What the link needs from the lock that owns it. */
export interface LockLinkHooks {
  /** Every notification or indication of the current connection. */
  notification(connection: GattConnection, characteristic: string, value: Buffer): void;
  /** Reads the lock's state after a connect; a throw fails the connect. */
  synchronise(connection: GattConnection): Promise<void>;
  /** Something was heard from the lock (connected, notified). */
  seen(): void;
  /** The connection became usable, or stopped being usable (lost, released, failed). */
  changed(): void;
  /** The connection is gone (dropped or released): whatever waits for an answer gives up. */
  ended(): void;
}

/** Settings of one link. */
export interface LockLinkSettings {
  address: string;
  name: string;
  profile: GattProfile;
  policy: ConnectionPolicy;
  connectTimeoutMs: number;
  backoff: BackoffPolicy;
}

/**
 * One lock's Bluetooth link: at most one connect in flight, the connection's lifecycle, and the
 * policy that decides when to hold it — reconnect with backoff for `keep_connected` locks,
 * release after an idle period for `on_demand` ones (docs/ble-protocol.md "Connection policy").
 */
export class LockLink {
  private connection: GattConnection | null = null;
  private connecting: Promise<GattConnection | null> | null = null;
  private synchronised = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private failedAttempts = 0;
  /** Why the latest connect failed at the transport; null after one that worked. */
  private lastFailure: TransportFailure | null = null;
  private holders = 0;
  private running = false;
  private stopped = false;

  constructor(
    private readonly transport: GattTransport,
    private readonly settings: LockLinkSettings,
    private readonly logger: GatewayLogger,
    private readonly hooks: LockLinkHooks,
  ) {}

  /** A synchronised connection is up. */
  get connected(): boolean {
    return this.synchronised && this.connection?.connected === true;
  }

  /** A connect (with its synchronisation) is in progress. */
  get isConnecting(): boolean {
    return this.connecting !== null;
  }

  /** The current synchronised connection, if any. */
  current(): GattConnection | null {
    return this.connected ? this.connection : null;
  }

  /** Starts the policy: a `keep_connected` link connects now and stays up. */
  start(): void {
    if (this.stopped || this.running) return;
    this.running = true;
    if (this.settings.policy.kind === 'keep_connected') void this.connect(this.settings.connectTimeoutMs);
  }

  /** Disconnects and stops reconnecting. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    this.clearTimers();
    const connecting = this.connecting;
    const connection = this.connection;
    this.connection = null;
    this.synchronised = false;
    this.hooks.ended();
    if (connection !== null) await connection.disconnect();
    if (connecting !== null) await connecting;
  }

  /**
   * The current connection, or a new one (joining a connect in progress); null when the lock
   * cannot be reached within `timeoutMs`. Never rejects.
   */
  connect(timeoutMs: number): Promise<GattConnection | null> {
    if (this.connecting !== null) return this.connecting;
    if (this.connected) return Promise.resolve(this.connection);
    if (this.stopped) return Promise.resolve(null);
    this.clearReconnectTimer();
    const connecting = this.establish(timeoutMs)
      .catch((error: unknown) => {
        this.logger.error(`Lock ${this.settings.name}: connecting failed unexpectedly: ${describeError(error)}`);
        return null;
      })
      .finally(() => {
        this.connecting = null;
      });
    this.connecting = connecting;
    return connecting;
  }

  /**
   * Why the latest connect failed at the transport (`no_free_slot`: every Bluetooth proxy that
   * hears the lock was full, docs/design.md §4e); null when it did not fail there.
   */
  get lastConnectFailure(): TransportFailure | null {
    return this.lastFailure;
  }

  /** A connection of this lock that dropped could be replaced through another gateway now (docs/design.md §4e). */
  canFailOver(lost: GattConnection): boolean {
    return !lost.connected && (this.transport.hasAlternative?.(this.settings.address, lost) ?? false);
  }

  /** Resolves once a connect in progress (with its synchronisation) has finished; at once otherwise. */
  async settle(): Promise<void> {
    if (this.connecting !== null) await this.connecting;
  }

  /** Marks the link in use (an on-demand link is not released while held). */
  hold(): void {
    this.holders += 1;
    this.clearIdleTimer();
  }

  /** Ends one use; an on-demand link with no users left is released after its idle period. */
  release(): void {
    this.holders = Math.max(0, this.holders - 1);
    this.scheduleIdleRelease();
  }

  private async establish(timeoutMs: number): Promise<GattConnection | null> {
    let connection: GattConnection;
    try {
      connection = await this.transport.connect(this.settings.address, this.settings.profile, { timeoutMs });
    } catch (error) {
      this.lastFailure = error instanceof TransportError ? error.failure : 'connect_failed';
      this.logger.debug(`Lock ${this.settings.name}: connect failed: ${describeError(error)}`);
      this.afterFailedConnect();
      return null;
    }
    this.lastFailure = null;
    if (this.stopped) {
      await connection.disconnect();
      return null;
    }
    connection.onNotification((characteristic, value) => {
      if (connection !== this.connection) return;
      this.hooks.seen();
      this.hooks.notification(connection, characteristic, value);
    });
    connection.onDisconnect(() => {
      this.handleLinkLost(connection);
    });
    this.connection = connection;
    this.hooks.seen();
    try {
      await this.hooks.synchronise(connection);
    } catch (error) {
      this.logger.warn(`Lock ${this.settings.name}: reading its state after connecting failed: ${describeError(error)}`);
      if (this.connection === connection) {
        this.connection = null;
        this.hooks.ended();
      }
      await connection.disconnect();
      this.afterFailedConnect();
      return null;
    }
    // stop() or a dropped link may have come during the awaits above.
    if (this.isStopped() || this.connection !== connection || !connection.connected) {
      await connection.disconnect();
      return null;
    }
    this.failedAttempts = 0;
    this.synchronised = true;
    this.logger.debug(`Lock ${this.settings.name}: connected.`);
    this.hooks.changed();
    this.scheduleIdleRelease();
    return connection;
  }

  private handleLinkLost(connection: GattConnection): void {
    if (connection !== this.connection) return;
    this.connection = null;
    this.synchronised = false;
    this.hooks.seen();
    this.logger.info(`Lock ${this.settings.name}: link lost.`);
    this.hooks.ended();
    this.hooks.changed();
    if (this.shouldReconnect()) this.scheduleReconnect();
  }

  private afterFailedConnect(): void {
    this.failedAttempts += 1;
    this.hooks.changed();
    if (this.shouldReconnect()) this.scheduleReconnect();
  }

  private shouldReconnect(): boolean {
    return this.running && !this.stopped && this.settings.policy.kind === 'keep_connected';
  }

  private scheduleReconnect(): void {
    // May run inside establish() (connecting still set): the timer then finds a settled attempt.
    if (this.reconnectTimer !== null) return;
    const delay = backoffDelay(Math.max(0, this.failedAttempts - 1), this.settings.backoff);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect(this.settings.connectTimeoutMs);
    }, delay);
  }

  /** On-demand links: disconnect once nobody has used the link for the idle period. */
  private scheduleIdleRelease(): void {
    const policy = this.settings.policy;
    if (policy.kind !== 'on_demand' || this.holders > 0 || this.connection === null || this.idleTimer !== null) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.holders > 0 || this.connecting !== null) return;
      const connection = this.connection;
      if (connection === null) return;
      this.connection = null;
      this.synchronised = false;
      this.logger.debug(`Lock ${this.settings.name}: released after ${policy.idleDisconnectMs} ms idle.`);
      this.hooks.ended();
      this.hooks.changed();
      connection.disconnect().catch((error: unknown) => {
        this.logger.debug(`Lock ${this.settings.name}: releasing the link failed: ${describeError(error)}`);
      });
    }, policy.idleDisconnectMs);
  }

  private clearReconnectTimer(): void {
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  private clearIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private clearTimers(): void {
    this.clearReconnectTimer();
    this.clearIdleTimer();
  }

  private isStopped(): boolean {
    return this.stopped;
  }
}
