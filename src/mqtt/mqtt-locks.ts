import type { LockCommandType } from '../domain/lock-command-type.js';
import { describeError } from '../domain/errors.js';
import type { LockChange, LockPort, PortLock } from '../lock-port/lock-port.js';
import type { Logger } from '../logger.js';
import { deviceDiscovery, type DiscoveryOrigin } from './home-assistant-discovery.js';
import { MqttConnection } from './mqtt-connection.js';
import { attributes, availability, commandOf, commandResult, eventMessage, lockState, modeState, type EventMessage, type LatchState } from './mqtt-lock-values.js';
import type { MqttSettings } from './mqtt-settings.js';
import { MqttTopics, type ModeControl } from './mqtt-topics.js';

/** What the MQTT view needs beside the port and its settings. */
export interface MqttLocksDependencies {
  port: LockPort;
  settings: MqttSettings;
  logger: Logger;
  /** Who announces the devices to Home Assistant (`o`). */
  origin: DiscoveryOrigin;
  /** The web app's address (the device's "Visit" link in Home Assistant); undefined: none. */
  configurationUrl?: () => string | undefined;
  /** Battery below this level (0–1) is `battery_low` (`homekit.low_battery_threshold`). */
  lowBatteryThreshold: number;
}

/** Retained, at QoS 1: what a subscriber arriving later still reads. */
const RETAINED = { qos: 1, retain: true } as const;
/** Not retained, at QoS 1: events and command results happen once. */
const ONCE = { qos: 1, retain: false } as const;

const MODES: readonly ModeControl[] = ['ring_to_open', 'continuous_mode'];

/** Per lock, what MQTT shows beyond the port's state. */
interface LockView {
  latch: LatchState;
  /** Where an MQTT command sends the bolt while it runs (LOCKING / UNLOCKING). */
  target: 'locked' | 'unlocked' | undefined;
  lastEvent: EventMessage | null;
  /** Whether the lock has an Opener's modes (their topics are cleared when it leaves). */
  opener: boolean;
}

/**
 * The MQTT view of the locks (docs/design.md §11, docs/home-assistant.md), beside HomeKit and
 * Matter on the same port:
 * - `<base>/status` is `online` while connected, `offline` by the last will or at a clean stop;
 * - per lock, retained `state` (Home Assistant's lock states), `availability` and `attributes`,
 *   an Opener's retained mode states, and one `event` message per lock event;
 * - `LOCK`/`UNLOCK`/`OPEN` on `<lock>/set` (and `ON`/`OFF` on an Opener's mode `set`) run as the
 *   acting user, who must own or administer the lock; the outcome goes to `command_result`;
 * - with discovery on, one retained device message per lock, sent again when Home Assistant says
 *   `online`, and an empty one for a lock of this site that is no longer configured.
 * The broker going away touches nothing else: the port's listeners are called as before, commands
 * run, and everything retained is published again when the connection is back (nothing is queued
 * meanwhile). No error escapes into the port or the service.
 */
export class MqttLocks {
  private readonly topics: MqttTopics;
  private readonly connection: MqttConnection;
  private readonly views = new Map<string, LockView>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: MqttLocksDependencies) {
    this.topics = new MqttTopics(deps.settings.baseTopic, deps.settings.discoveryPrefix);
    this.connection = new MqttConnection(
      deps.settings,
      { topic: this.topics.status(), payload: 'offline' },
      {
        connected: () => {
          this.onConnected();
        },
        message: (topic, payload, retained) => {
          this.onMessage(topic, payload, retained);
        },
      },
      deps.logger,
    );
  }

  /** The topics of this site (for tests and the docs' examples). */
  get topicNames(): MqttTopics {
    return this.topics;
  }

  /** Whether the broker is connected now. */
  get connected(): boolean {
    return this.connection.connected;
  }

  /** Listens to the port and connects (keeps connecting); never rejects. */
  async start(): Promise<void> {
    for (const lock of this.deps.port.listLocks()) this.views.set(lock.id, this.newView(lock));
    this.unsubscribe = this.deps.port.subscribe((change) => {
      try {
        this.onChange(change);
      } catch (error) {
        this.deps.logger.error(`MQTT: could not publish a change of a lock: ${describeError(error)}`);
      }
    });
    await this.connection.start();
  }

  /** Says `offline` and disconnects. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.connection.stop({ topic: this.topics.status(), payload: 'offline' });
  }

  private newView(lock: PortLock): LockView {
    return { latch: { opening: false, open: false }, target: undefined, lastEvent: null, opener: lock.capabilities.opener };
  }

  private view(lockId: string): LockView | undefined {
    return this.views.get(lockId);
  }

  /** Connected (again): subscribe, then publish everything retained. */
  private onConnected(): void {
    this.connection.publish(this.topics.status(), 'online', RETAINED);
    const filters = this.topics.commandFilters();
    if (this.deps.settings.discovery) filters.push(this.topics.homeAssistantStatus(), this.topics.discoveryFilter());
    this.connection.subscribe(filters);
    for (const lock of this.deps.port.listLocks()) this.publishLock(lock);
  }

  /** Everything retained of one lock, and its device message. */
  private publishLock(lock: PortLock): void {
    if (!this.views.has(lock.id)) this.views.set(lock.id, this.newView(lock));
    if (this.deps.settings.discovery) this.publishDiscovery(lock);
    this.publishState(lock);
    this.connection.publish(this.topics.availability(lock.id), availability(lock), RETAINED);
    this.publishAttributes(lock);
    if (lock.capabilities.opener) for (const mode of MODES) this.connection.publish(this.topics.mode(lock.id, mode), modeState(lock, mode), RETAINED);
  }

  private publishDiscovery(lock: PortLock): void {
    const payload = deviceDiscovery(lock, this.topics, this.deps.origin, this.deps.configurationUrl?.());
    this.connection.publish(this.topics.discovery(lock.id), JSON.stringify(payload), RETAINED);
  }

  private publishState(lock: PortLock): void {
    const view = this.view(lock.id);
    if (view === undefined) return;
    this.connection.publish(this.topics.state(lock.id), lockState(lock, view.latch, view.target), RETAINED);
  }

  private publishAttributes(lock: PortLock): void {
    const view = this.view(lock.id);
    this.connection.publish(this.topics.attributes(lock.id), JSON.stringify(attributes(lock, this.deps.lowBatteryThreshold, view?.lastEvent ?? null)), RETAINED);
  }

  /** Empties everything retained of a lock that left, and (with discovery) its device: Home Assistant removes it. */
  private forget(lockId: string, opener: boolean): void {
    this.views.delete(lockId);
    if (this.deps.settings.discovery) this.connection.publish(this.topics.discovery(lockId), '', RETAINED);
    for (const topic of this.topics.retainedOf(lockId)) {
      if (!opener && (topic === this.topics.mode(lockId, 'ring_to_open') || topic === this.topics.mode(lockId, 'continuous_mode'))) continue;
      this.connection.publish(topic, '', RETAINED);
    }
  }

  private onChange(change: LockChange): void {
    if (change.kind === 'locks_changed') {
      const now = new Map(this.deps.port.listLocks().map((lock) => [lock.id, lock]));
      for (const [lockId, view] of [...this.views]) if (!now.has(lockId)) this.forget(lockId, view.opener);
      for (const lock of now.values()) if (this.connection.connected) this.publishLock(lock);
      return;
    }
    const lock = this.deps.port.getLock(change.lockId);
    const view = this.view(change.lockId);
    if (lock === undefined || view === undefined) return;
    switch (change.kind) {
      case 'bolt':
        // The bolt settled: a move of ours is over, and a pulled latch is history once the bolt moves again.
        view.target = undefined;
        if (change.bolt !== 'unlocked') view.latch.open = false;
        this.publishState(lock);
        return;
      case 'moving':
        if (change.moving) view.latch.open = false;
        this.publishState(lock);
        return;
      case 'connectivity':
        this.connection.publish(this.topics.availability(lock.id), availability(lock), RETAINED);
        return;
      case 'battery':
      case 'door':
        this.publishAttributes(lock);
        return;
      case 'modes':
        for (const mode of MODES) this.connection.publish(this.topics.mode(lock.id, mode), modeState(lock, mode), RETAINED);
        return;
      case 'device_information':
        if (this.deps.settings.discovery) this.publishDiscovery(lock);
        return;
      case 'event': {
        const message = eventMessage(change.event);
        this.connection.publish(this.topics.event(lock.id), JSON.stringify(message), ONCE);
        if (message.event_type !== 'ring') {
          view.lastEvent = message;
          this.publishAttributes(lock);
        }
        return;
      }
      case 'ring':
      case 'tap':
        // A ring and a tap arrive as `event` too (with who and how): nothing more to say here.
        return;
    }
  }

  private onMessage(topic: string, payload: Buffer, retained: boolean): void {
    if (this.deps.settings.discovery) {
      if (topic === this.topics.homeAssistantStatus()) {
        // Home Assistant (re)started: announce every lock again (its birth message).
        if (payload.toString('utf8').trim() === 'online') for (const lock of this.deps.port.listLocks()) this.publishDiscovery(lock);
        return;
      }
      const node = this.topics.nodeOfDiscovery(topic);
      if (node !== null) {
        this.onDiscoveryConfig(node, payload);
        return;
      }
    }
    const command = this.topics.parseCommand(topic);
    if (command === null) return;
    if (retained) {
      // A retained command would run again at every reconnect: it is never obeyed.
      this.badPayload(topic, 'a retained message is never obeyed as a command (publish commands without the retain flag)');
      return;
    }
    const lock = this.deps.port.getLock(command.lockId);
    if (lock === undefined) {
      this.badPayload(topic, 'no lock of this service has that id');
      return;
    }
    const text = payload.toString('utf8');
    const type = commandOf(command.control, text);
    if (type === null) {
      const wanted = command.control === 'bolt' ? 'LOCK, UNLOCK or OPEN' : 'ON or OFF';
      this.badPayload(topic, `"${text.slice(0, 40)}" is not ${wanted}`);
      return;
    }
    if (!lock.commands.includes(type)) {
      this.badPayload(topic, `${lock.name} cannot ${type === 'unlatch' ? 'open (unlatch)' : type.replace(/_/g, ' ')}`);
      return;
    }
    void this.run(lock, type);
  }

  /** A retained device message of this site for a lock that is no longer configured: emptied (Home Assistant removes the device). */
  private onDiscoveryConfig(node: string, payload: Buffer): void {
    if (payload.length === 0) return;
    const lockId = this.topics.lockIdOfNode(node);
    if (lockId === null || this.deps.port.getLock(lockId) !== undefined) return;
    this.deps.logger.info(`MQTT: lock ${lockId} is no longer configured; its device is removed from Home Assistant.`);
    this.forget(lockId, true);
  }

  /** Runs one command as the acting user and publishes its outcome. */
  private async run(lock: PortLock, type: LockCommandType): Promise<void> {
    const resultTopic = this.topics.commandResult(lock.id);
    const actingUserId = this.actingUserId(lock);
    if (actingUserId === null) {
      this.deps.logger.warn(`MQTT: ${type} of ${lock.name} refused: mqtt.acting_user "${this.deps.settings.actingUser ?? ''}" names no account.`);
      this.connection.publish(resultTopic, JSON.stringify({ command_id: null, type, status: 'refused', failure_reason: 'unknown_user' }), ONCE);
      return;
    }
    const view = this.view(lock.id);
    if (view !== undefined) {
      // Show the move at once (LOCKING, UNLOCKING, OPENING), as Home Assistant expects of a lock that is not optimistic.
      if (type === 'lock' || type === 'unlock') view.target = type === 'lock' ? 'locked' : 'unlocked';
      if (type === 'unlatch') {
        view.target = 'unlocked';
        view.latch.opening = true;
      }
      if (view.target !== undefined && this.deps.port.getLock(lock.id)?.moving !== true) {
        this.connection.publish(this.topics.state(lock.id), type === 'unlatch' ? 'OPENING' : view.target === 'locked' ? 'LOCKING' : 'UNLOCKING', RETAINED);
      }
    }
    const result = await this.deps.port.requestCommand(lock.id, type, actingUserId, { origin: 'mqtt', managersOnly: true });
    if (result.status === 'rejected') {
      this.deps.logger.warn(`MQTT: ${type} of ${lock.name} refused (${result.reason}).`);
    }
    const after = this.deps.port.getLock(lock.id);
    const viewAfter = this.view(lock.id);
    if (viewAfter !== undefined && after !== undefined) {
      viewAfter.target = undefined;
      if (type === 'unlatch') {
        viewAfter.latch.opening = false;
        viewAfter.latch.open = result.status === 'completed';
      }
      this.publishState(after);
    }
    this.connection.publish(resultTopic, JSON.stringify(commandResult(type, result)), ONCE);
  }

  /** `mqtt.acting_user`, else the lock's owner; null when the configured address names nobody. */
  private actingUserId(lock: PortLock): string | null {
    const email = this.deps.settings.actingUser;
    if (email === undefined) return lock.ownerId;
    return this.deps.port.resolveUser(email)?.id ?? null;
  }

  /** A message that is no command: ignored, with one log line. */
  private badPayload(topic: string, why: string): void {
    this.deps.logger.warn(`MQTT: ignored a message on ${topic}: ${why}.`);
  }
}
