import dbus, { type MessageBus } from 'dbus-next';
import type { EventEmitter } from 'node:events';
import type NodeBle from 'node-ble';
import Bluetooth from 'node-ble/src/Bluetooth.js';
import { EXPIRED, type Deadline } from '../../deadline.js';
import type { GatewayLogger } from '../../gateway-logger.js';
import { TransportError } from '../../gatt-transport.js';
import { BUS_HINT, bluetoothHint, raceOrFail } from './bluez-errors.js';
import { onBusConnectionEnd } from './dbus-connection-end.js';
import { repairMatchRuleRefcount } from './dbus-match-rules.js';
import { helperOf } from './node-ble-internals.js';
import { describeError } from '../../../domain/errors.js';

export type Characteristic = NodeBle.GattCharacteristic;

/** What a session needs of a live connection when the bus goes away or the transport closes. */
export interface SessionConnection {
  /** The link dropped: tell the connection's owner. */
  lose(): void;
  disconnect(): Promise<void>;
}

/** One bus connection and everything node-ble built on it. */
export interface Session {
  bus: MessageBus;
  bluetooth: NodeBle.Bluetooth;
  ready: Promise<void>;
  broken: boolean;
  adapter: NodeBle.Adapter | null;
  /** Device objects and resolved characteristics, reused across connections (their proxies hold one match rule each). */
  devices: Map<string, DeviceHandle>;
  connections: Set<SessionConnection>;
  /** Who needs LE discovery now: device lookups and the advertisement watch. */
  discoveryUsers: number;
  /** Whether our StartDiscovery is in force. */
  discoveryOn: boolean;
  /** Discovery on/off calls, one after the other so they never interleave. */
  discoveryChain: Promise<void>;
}

export interface DeviceHandle {
  device: NodeBle.Device;
  /**
   * Characteristic objects by `service/characteristic` UUID, null when the device lacks it;
   * shared by every profile, so a characteristic two profiles use costs one proxy and one rule.
   */
  characteristics: Map<string, Characteristic | null>;
  /** Each profile resolved once: profile key → name → characteristic. */
  profiles: Map<string, Map<string, Characteristic>>;
}

/**
 * The BlueZ transport's bus session: one D-Bus connection, opened on first use and again after it
 * broke, with an `error` listener that keeps an unreachable bus from crashing the process, and
 * one error line per outage.
 */
export class BusSession {
  private session: Session | null = null;
  /** Set once a bus failure was logged as an error; later failures are debug lines until it works again. */
  private busFailureReported = false;

  constructor(
    private readonly options: { busAddress?: string | undefined; adapter?: string | undefined },
    private readonly logger: GatewayLogger,
    /** The bus of `session` failed: its connections, rules and discovery died with it. */
    private readonly lost: (session: Session) => void,
  ) {}

  /** The session of the moment (null before the first use and after close). */
  get current(): Session | null {
    return this.session;
  }

  /** Whether the bus failure of this outage was already said as an error. */
  get failureReported(): boolean {
    return this.busFailureReported;
  }

  /** Takes the session away (transport close): the caller ends its connections, then drops it. */
  take(): Session | null {
    const session = this.session;
    this.session = null;
    return session;
  }

  async ready(deadline: Deadline): Promise<Session> {
    if (this.session?.broken === true) {
      dropSession(this.session);
      this.session = null;
    }
    const session = this.session ?? this.open();
    this.session = session;
    const ready = await deadline.race(session.ready);
    if (ready === EXPIRED) {
      // A bus that does not finish its handshake in a whole connect budget is not usable.
      session.broken = true;
      throw new TransportError('bus_unavailable', 'the system bus did not answer');
    }
    return session;
  }

  async adapterOf(session: Session, deadline: Deadline): Promise<NodeBle.Adapter> {
    if (session.adapter !== null) return session.adapter;
    const name = this.options.adapter;
    const adapter = await raceOrFail(deadline, name === undefined ? session.bluetooth.defaultAdapter() : session.bluetooth.getAdapter(name), 'bus_unavailable', 'adapter lookup timed out');
    session.adapter = adapter;
    return adapter;
  }

  private open(): Session {
    const address = this.options.busAddress;
    const bus = address === undefined ? dbus.systemBus() : dbus.sessionBus({ busAddress: address });
    repairMatchRuleRefcount(bus);
    const session: Session = {
      bus,
      bluetooth: new Bluetooth(bus),
      ready: Promise.resolve(),
      broken: false,
      adapter: null,
      devices: new Map(),
      connections: new Set(),
      discoveryUsers: 0,
      discoveryOn: false,
      discoveryChain: Promise.resolve(),
    };
    const failed = (message: string): void => {
      if (session.broken) return;
      session.broken = true;
      // One error line per outage, not one per reconnect attempt.
      if (this.busFailureReported) this.logger.debug(message);
      else this.logger.error(message);
      this.busFailureReported = true;
      this.lost(session);
    };
    session.ready = new Promise<void>((resolve, reject) => {
      bus.once('connect', () => {
        if (this.busFailureReported) this.logger.info('D-Bus connection works again.');
        this.busFailureReported = false;
        resolve();
      });
      // Without an error listener an unreachable or failing bus throws from an EventEmitter and
      // ends the process. With it, the session is marked broken and the next connect starts over.
      bus.on('error', (error: unknown) => {
        const message = describeError(error);
        failed(`D-Bus connection failed: ${message}. ${bluetoothHint(error) ?? BUS_HINT}`);
        reject(new TransportError('bus_unavailable', `D-Bus: ${message}`));
      });
    });
    onBusConnectionEnd(bus, () => {
      failed('D-Bus connection closed.');
    });
    // The rejection is observed by ready(); this keeps an unobserved one from being reported.
    session.ready.catch(() => undefined);
    return session;
  }
}

/**
 * Drops the callback node-ble's Device.connect() adds to its helper on every call (it never
 * removes it unless Disconnect succeeds through node-ble). The proxy's own PropertiesChanged
 * subscription — one match rule per cached device — stays for the next connection; with
 * `completely` it goes too (the device leaves the cache).
 */
export function releaseDevice(device: NodeBle.Device, completely: boolean): void {
  if (completely) {
    device.removeAllListeners('disconnect');
    device.removeAllListeners('connect');
    helperOf(device).removeListeners();
  } else {
    helperOf(device).removeAllListeners('PropertiesChanged');
  }
}

/** Listeners on every cached node-ble object of a session and on its BusHelper. */
export function nodeBleListenerCount(session: Session): number {
  const count = (emitter: EventEmitter): number => emitter.eventNames().reduce((sum, name) => sum + emitter.listenerCount(name), 0);
  let total = 0;
  for (const handle of session.devices.values()) {
    const objects: EventEmitter[] = [handle.device, ...[...handle.characteristics.values()].filter((c): c is Characteristic => c !== null)];
    for (const object of objects) total += count(object) + count(helperOf(object));
  }
  return total;
}

/** Removes a device from the session cache and releases everything node-ble holds for it. */
export function forgetDevice(session: Session, address: string, handle: DeviceHandle): void {
  if (session.devices.get(address) === handle) session.devices.delete(address);
  for (const characteristic of handle.characteristics.values()) {
    if (characteristic === null) continue;
    characteristic.removeAllListeners('valuechanged');
    helperOf(characteristic).removeListeners();
  }
  handle.characteristics.clear();
  handle.profiles.clear();
  releaseDevice(handle.device, true);
}

export function dropSession(session: Session): void {
  session.broken = true;
  for (const [address, handle] of [...session.devices]) forgetDevice(session, address, handle);
  session.bus.disconnect();
}
