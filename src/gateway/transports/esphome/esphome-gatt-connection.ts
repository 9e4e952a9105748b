import { TransportError, type GattConnection } from '../../gatt-transport.js';
import { ConnectionListeners } from '../shared/connection-listeners.js';
import { DeviceRequestType, deviceRequest, MessageType, readConnection, readHandleAnswer, readRequest, writeRequest, type ApiMessage } from './esphome-messages.js';
import { EsphomeApiError } from './esphome-api-error.js';
import type { MessageMatch } from './esphome-api-connection.js';

/** What a link needs of the proxy session that carries it. */
export interface ProxyChannel {
  /** The proxy's configured name, for messages. */
  readonly proxyName: string;
  send(message: ApiMessage): void;
  /** Rejects with an EsphomeApiError when the proxy's connection ends first. */
  waitFor<T>(match: MessageMatch<T>, timeoutMs: number, onTimeout: () => Error): Promise<T>;
  /** The link is over: its slot is ours no more. */
  release(link: EsphomeGattConnection): void;
  /** Where a throwing listener is reported. */
  listenerFailed(message: string): void;
}

/** A characteristic of the profile as the proxy numbers it. */
export interface ResolvedCharacteristic {
  handle: number;
  properties: number;
}

/** How long a disconnect waits for the proxy to confirm it, ms. */
const DISCONNECT_CONFIRM_MS = 2_000;

/** A GATT error code of BluetoothGATTErrorResponse in words (ESP-IDF's esp_gatt_status_t names the ATT errors). */
function gattErrorWords(code: number): string {
  switch (code) {
    case 0x02:
      return 'read not permitted';
    case 0x03:
      return 'write not permitted';
    case 0x05:
      return 'insufficient authentication';
    case 0x0d:
      return 'invalid attribute value length';
    case 0x0e:
      return 'unlikely error';
    default:
      return `error ${code}`;
  }
}

/**
 * One GATT link to a device through a proxy (docs/gateways.md "How it works"): reads and writes
 * by the profile's names, each answered or refused for this address and handle, one at a time
 * (ATT has one request in flight per link), each within the operation budget counted from the
 * call; notifications by the profile's names through {@link ConnectionListeners}.
 */
export class EsphomeGattConnection implements GattConnection {
  private readonly listeners: ConnectionListeners;
  private state: 'open' | 'dropped' | 'closed' = 'open';
  private queue: Promise<unknown> = Promise.resolve();
  /** Subscribed characteristic names per handle, set once subscriptions are made. */
  private subscribedByHandle = new Map<number, string[]>();

  constructor(
    readonly address: string,
    readonly addressNumber: number,
    private readonly channel: ProxyChannel,
    private readonly operationTimeoutMs: number,
  ) {
    this.listeners = new ConnectionListeners((message) => {
      channel.listenerFailed(`${address}: ${message}`);
    });
  }

  /** Set by the connect once the profile is resolved. */
  characteristics = new Map<string, ResolvedCharacteristic>();

  get connected(): boolean {
    return this.state === 'open';
  }

  /** The subscriptions are made: notifications of these handles go to these names. */
  subscribed(byHandle: Map<number, string[]>): void {
    this.subscribedByHandle = byHandle;
  }

  has(characteristic: string): boolean {
    return this.characteristics.has(characteristic);
  }

  read(characteristic: string): Promise<Buffer> {
    return this.operation(`read ${characteristic}`, characteristic, (handle) => ({
      request: readRequest(this.addressNumber, handle),
      answer: (message) => (message.type === MessageType.BluetoothGATTReadResponse ? readHandleAnswer(message.body).data : undefined),
    }));
  }

  write(characteristic: string, value: Buffer): Promise<void> {
    return this.operation(`write ${characteristic}`, characteristic, (handle) => ({
      request: writeRequest(this.addressNumber, handle, value, true),
      answer: (message) => (message.type === MessageType.BluetoothGATTWriteResponse ? true : undefined),
    })).then(() => undefined);
  }

  /** BluetoothGATTWriteRequest with `response: false`: nothing answers it, so it resolves once sent (after the writes before it). */
  writeWithoutResponse(characteristic: string, value: Buffer): Promise<void> {
    const run = (): void => {
      if (this.state !== 'open') throw new TransportError('not_connected', `${this.address}: write ${characteristic}: the link is closed`);
      const resolved = this.characteristics.get(characteristic);
      if (resolved === undefined) throw new TransportError('operation_failed', `${this.address} has no ${characteristic}`);
      this.channel.send(writeRequest(this.addressNumber, resolved.handle, value, false));
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  onNotification(listener: (characteristic: string, value: Buffer) => void): void {
    this.listeners.setNotificationListener(listener);
  }

  onDisconnect(listener: () => void): void {
    this.listeners.setDisconnectListener(listener);
  }

  async disconnect(): Promise<void> {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    this.listeners.closed();
    if (!wasOpen) return;
    const confirmed = this.channel
      .waitFor((message) => this.isLinkDown(message) || undefined, DISCONNECT_CONFIRM_MS, () => new Error('no confirmation'))
      .catch(() => undefined);
    this.channel.send(deviceRequest(this.addressNumber, DeviceRequestType.Disconnect));
    await confirmed;
    this.channel.release(this);
  }

  /** A notification for this link arrived. */
  notified(handle: number, value: Buffer): void {
    for (const name of this.subscribedByHandle.get(handle) ?? []) this.listeners.value(name, value);
  }

  /** The proxy reports the link down, or the proxy itself is gone: reported once, the slot released. */
  lost(): void {
    if (this.state !== 'open') return;
    this.state = 'dropped';
    this.channel.release(this);
    this.listeners.dropped();
  }

  /** A BluetoothDeviceConnectionResponse saying this link is down. */
  isLinkDown(message: ApiMessage): boolean {
    if (message.type !== MessageType.BluetoothDeviceConnectionResponse) return false;
    const answer = readConnection(message.body);
    return answer.address === this.addressNumber && !answer.connected;
  }

  private operation<T>(what: string, characteristic: string, build: (handle: number) => { request: ApiMessage; answer: (message: ApiMessage) => T | undefined }): Promise<T> {
    const startedAt = performance.now();
    const run = async (): Promise<T> => {
      if (this.state !== 'open') throw new TransportError('not_connected', `${this.address}: ${what}: the link is closed`);
      const resolved = this.characteristics.get(characteristic);
      if (resolved === undefined) throw new TransportError('operation_failed', `${this.address} has no ${characteristic}`);
      const left = this.operationTimeoutMs - (performance.now() - startedAt);
      if (left <= 0) throw new TransportError('operation_failed', `${this.address}: ${what} timed out`);
      const { request, answer } = build(resolved.handle);
      const outcome = this.channel.waitFor<{ value: T } | { error: TransportError }>(
        (message) => {
          if (this.isLinkDown(message)) return { error: new TransportError('not_connected', `${this.address}: ${what}: the link dropped`) };
          if (message.type === MessageType.BluetoothGATTErrorResponse) {
            const refusal = readHandleAnswer(message.body);
            if (refusal.address === this.addressNumber && refusal.handle === resolved.handle) {
              return { error: new TransportError('operation_failed', `${this.address}: ${what} refused through proxy ${this.channel.proxyName} (${gattErrorWords(refusal.error)})`) };
            }
            return undefined;
          }
          const fields = answerFields(message);
          if (fields === undefined || fields.address !== this.addressNumber || fields.handle !== resolved.handle) return undefined;
          const value = answer(message);
          return value === undefined ? undefined : { value };
        },
        left,
        () => new TransportError('operation_failed', `${this.address}: ${what} through proxy ${this.channel.proxyName} timed out`),
      );
      this.channel.send(request);
      let result: { value: T } | { error: TransportError };
      try {
        result = await outcome;
      } catch (error) {
        if (error instanceof TransportError) throw error;
        if (error instanceof EsphomeApiError) throw new TransportError('not_connected', `${this.address}: ${what}: proxy ${this.channel.proxyName} is gone (${error.message})`, { cause: error });
        throw new TransportError('operation_failed', `${this.address}: ${what} failed`, { cause: error });
      }
      if ('error' in result) throw result.error;
      return result.value;
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** Address and handle of an answer that carries them (read, write and notify answers). */
function answerFields(message: ApiMessage): { address: number; handle: number } | undefined {
  if (message.type !== MessageType.BluetoothGATTReadResponse && message.type !== MessageType.BluetoothGATTWriteResponse && message.type !== MessageType.BluetoothGATTNotifyResponse) return undefined;
  const answer = readHandleAnswer(message.body);
  return { address: answer.address, handle: answer.handle };
}
