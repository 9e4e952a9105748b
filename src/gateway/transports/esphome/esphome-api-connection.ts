import { connect as connectTcp, type Socket } from 'node:net';
import { describeError } from '../../../domain/errors.js';
import { decodeNoiseMessage, encodeNoiseFrame, encodeNoiseMessage, encodePlaintextFrame, FrameError, FrameReader, NOISE_INDICATOR, PLAINTEXT_INDICATOR } from './api-frames.js';
import { EsphomeApiError } from './esphome-api-error.js';
import {
  authenticationRequest,
  deviceInfoRequest,
  disconnectRequest,
  disconnectResponse,
  getTimeResponse,
  helloRequest,
  listEntitiesRequest,
  MessageType,
  pingRequest,
  pingResponse,
  readDeviceInfo,
  readHello,
  subscribeStatesRequest,
  type ApiMessage,
  type DeviceInfo,
} from './esphome-messages.js';
import { NoiseDecryptError, NoiseHandshake, type NoiseTransportKeys } from './noise-handshake.js';
import { ProtoFields } from './protobuf-fields.js';

/** Where and how to reach one proxy's native API. */
export interface ApiEndpoint {
  host: string;
  port: number;
  /** The 32-byte Noise pre-shared key; null for the plaintext API. */
  psk: Buffer | null;
  /** What the proxy's log shows as the client. */
  clientInfo: string;
}

/** Timings of one API connection; tests shorten them. */
export interface ApiTimings {
  /** TCP connect plus the whole set-up (handshake, Hello, DeviceInfo, ListEntities), ms. */
  setupTimeoutMs: number;
  /** How often we ping an idle proxy, ms: TCP alone notices an unplugged proxy only after minutes. */
  pingIntervalMs: number;
  /** A ping not answered within this is a dead link, ms. */
  pingTimeoutMs: number;
}

export const DEFAULT_API_TIMINGS: ApiTimings = { setupTimeoutMs: 10_000, pingIntervalMs: 20_000, pingTimeoutMs: 10_000 };

type MessageListener = (message: ApiMessage) => void;

/** A message matcher: the value wanted from a message, or undefined to wait for the next. */
export type MessageMatch<T> = (message: ApiMessage) => T | undefined;

interface Waiter {
  match: MessageMatch<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * One open connection to a proxy's native API, set up (Noise or plaintext framing, Hello,
 * DeviceInfo, the entity list and state subscription the device expects) and kept alive: the
 * device's pings are answered, ours detect a proxy that vanished, its time requests are answered,
 * and a message id we do not know is skipped — never a reason to close the link.
 */
export class EsphomeApiConnection {
  private readonly waiters = new Set<Waiter>();
  private readonly messageListeners = new Set<MessageListener>();
  private closeListener: ((error: EsphomeApiError) => void) | undefined;
  private ended: EsphomeApiError | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private lastHeard = performance.now();
  private pingOutstanding = false;

  private constructor(
    private readonly socket: Socket,
    private readonly keys: NoiseTransportKeys | null,
    private reader: FrameReader,
    readonly deviceInfo: DeviceInfo,
    private readonly timings: ApiTimings,
  ) {}

  /**
   * Connects and sets up; rejects with an {@link EsphomeApiError} (never anything else) and leaves
   * no socket behind when it does.
   */
  static async open(endpoint: ApiEndpoint, timings: ApiTimings = DEFAULT_API_TIMINGS): Promise<EsphomeApiConnection> {
    const socket = connectTcp({ host: endpoint.host, port: endpoint.port });
    socket.setNoDelay(true);
    const setup = new ConnectionSetup(socket, endpoint, timings);
    try {
      return await setup.run();
    } catch (error) {
      socket.destroy();
      throw error instanceof EsphomeApiError ? error : new EsphomeApiError('protocol', describeError(error), { cause: error });
    }
  }

  /** @internal Called by the set-up with everything it read. */
  static adopt(socket: Socket, keys: NoiseTransportKeys | null, reader: FrameReader, deviceInfo: DeviceInfo, timings: ApiTimings, early: ApiMessage[]): EsphomeApiConnection {
    const connection = new EsphomeApiConnection(socket, keys, reader, deviceInfo, timings);
    connection.attach(early);
    return connection;
  }

  /** Whether the connection is still up. */
  get open(): boolean {
    return this.ended === null;
  }

  /** Sends a message; a closed connection drops it (its waiters have already failed). */
  send(message: ApiMessage): void {
    if (this.ended !== null) return;
    const frame = this.keys === null ? encodePlaintextFrame(message) : encodeNoiseFrame(this.keys.send.encrypt(encodeNoiseMessage(message)));
    this.socket.write(frame);
  }

  /** Every message received from now on (after the answers to {@link request}s are matched). */
  onMessage(listener: MessageListener): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  /** Called once when the connection ends for any reason other than {@link close}. */
  onClose(listener: (error: EsphomeApiError) => void): void {
    this.closeListener = listener;
  }

  /**
   * Waits for the first message `match` accepts, up to `timeoutMs`; rejects with `onTimeout()`,
   * or with an EsphomeApiError('closed') when the connection ends first.
   */
  waitFor<T>(match: MessageMatch<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
    if (this.ended !== null) return Promise.reject(this.ended);
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve: resolve as (value: unknown) => void,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(onTimeout());
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** Says goodbye (DisconnectRequest) and closes. Idempotent. */
  close(): void {
    if (this.ended !== null) return;
    this.send(disconnectRequest());
    this.end(new EsphomeApiError('closed', 'closed by us'), false);
    this.socket.end();
    // A proxy that does not close its side is not waited for.
    setTimeout(() => this.socket.destroy(), 1_000).unref();
  }

  private attach(early: ApiMessage[]): void {
    this.socket.on('data', (data: Buffer) => {
      this.received(data);
    });
    this.socket.on('error', (error) => {
      this.end(new EsphomeApiError('closed', `the proxy's connection failed: ${error.message}`, { cause: error }));
    });
    this.socket.on('close', () => {
      this.end(new EsphomeApiError('closed', 'the proxy closed the connection'));
    });
    this.pingTimer = setInterval(() => {
      this.keepAlive();
    }, Math.max(50, Math.min(this.timings.pingIntervalMs, this.timings.pingTimeoutMs) / 2));
    this.pingTimer.unref();
    // Messages that came in the same reads as the set-up's last answer.
    for (const message of early) {
      queueMicrotask(() => {
        this.dispatch(message);
      });
    }
  }

  private received(data: Buffer): void {
    if (this.ended !== null) return;
    this.lastHeard = performance.now();
    this.pingOutstanding = false;
    let frames: (ApiMessage | Buffer)[];
    try {
      frames = this.reader.push(data);
    } catch (error) {
      this.fail(`the proxy broke the framing: ${describeError(error)}`, error);
      return;
    }
    for (const frame of frames) {
      let message: ApiMessage;
      try {
        message = Buffer.isBuffer(frame) ? decodeNoiseMessage(this.decrypt(frame)) : frame;
      } catch (error) {
        this.fail(`a frame from the proxy could not be read: ${describeError(error)}`, error);
        return;
      }
      this.dispatch(message);
      // A message may have ended the connection (the proxy's goodbye).
      if (!this.open) return;
    }
  }

  private decrypt(payload: Buffer): Buffer {
    if (this.keys === null) throw new FrameError('an encrypted frame on a plaintext connection');
    return this.keys.receive.decrypt(payload);
  }

  private dispatch(message: ApiMessage): void {
    switch (message.type) {
      case MessageType.PingRequest:
        this.send(pingResponse());
        return;
      case MessageType.GetTimeRequest:
        this.send(getTimeResponse(Date.now()));
        return;
      case MessageType.DisconnectRequest:
        this.send(disconnectResponse());
        this.fail('the proxy said goodbye');
        return;
      default:
        break;
    }
    for (const waiter of [...this.waiters]) {
      let value: unknown;
      try {
        value = waiter.match(message);
      } catch {
        value = undefined;
      }
      if (value === undefined) continue;
      this.waiters.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve(value);
    }
    for (const listener of [...this.messageListeners]) listener(message);
  }

  private keepAlive(): void {
    if (this.ended !== null) return;
    const silentFor = performance.now() - this.lastHeard;
    if (this.pingOutstanding && silentFor >= this.timings.pingTimeoutMs) {
      this.fail(`the proxy did not answer a ping within ${this.timings.pingTimeoutMs} ms`);
      return;
    }
    if (!this.pingOutstanding && silentFor >= this.timings.pingIntervalMs) {
      this.pingOutstanding = true;
      // Counted from the ping, not from the last message.
      this.lastHeard = performance.now();
      this.send(pingRequest());
    }
  }

  private fail(reason: string, cause?: unknown): void {
    this.end(new EsphomeApiError('closed', reason, cause === undefined ? undefined : { cause }));
    this.socket.destroy();
  }

  private end(error: EsphomeApiError, tell = true): void {
    if (this.ended !== null) return;
    this.ended = error;
    if (this.pingTimer !== null) clearInterval(this.pingTimer);
    this.pingTimer = null;
    for (const waiter of [...this.waiters]) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
    this.waiters.clear();
    this.messageListeners.clear();
    const listener = this.closeListener;
    this.closeListener = undefined;
    if (tell && listener !== undefined) listener(error);
  }
}

/**
 * The set-up of one connection, in order: TCP, the Noise handshake (with a key), Hello, the
 * legacy authentication for firmware before API 1.12, DeviceInfo, ListEntities and
 * SubscribeStates. Reads the stream itself until the connection is handed over.
 */
class ConnectionSetup {
  private reader: FrameReader;
  private keys: NoiseTransportKeys | null = null;
  private readonly pending: (ApiMessage | Buffer)[] = [];
  private wake: (() => void) | undefined;
  private failure: EsphomeApiError | null = null;
  private readonly handshake: NoiseHandshake | null;

  constructor(
    private readonly socket: Socket,
    private readonly endpoint: ApiEndpoint,
    private readonly timings: ApiTimings,
  ) {
    this.reader = new FrameReader(endpoint.psk === null ? 'plaintext' : 'noise');
    this.handshake = endpoint.psk === null ? null : new NoiseHandshake('initiator', endpoint.psk);
  }

  async run(): Promise<EsphomeApiConnection> {
    const timer = setTimeout(() => {
      this.stop(new EsphomeApiError('protocol', `the proxy did not complete the set-up within ${this.timings.setupTimeoutMs} ms`));
    }, this.timings.setupTimeoutMs);
    const onData = (data: Buffer): void => {
      this.received(data);
    };
    const onError = (error: Error): void => {
      this.stop(new EsphomeApiError('unreachable', error.message, { cause: error }));
    };
    const onClose = (): void => {
      this.stop(new EsphomeApiError('closed', 'the proxy closed the connection during the set-up'));
    };
    this.socket.on('data', onData);
    this.socket.on('error', onError);
    this.socket.on('close', onClose);
    try {
      await this.connected();
      if (this.handshake !== null) await this.noiseHandshake(this.handshake);
      this.send(helloRequest(this.endpoint.clientInfo));
      const hello = readHello((await this.next(MessageType.HelloResponse)).body);
      if (hello.major === 1 && hello.minor < 12) {
        // Firmware before passwords were removed asks for an authentication even without one.
        this.send(authenticationRequest());
        const answer = await this.next(MessageType.AuthenticationResponse);
        if (ProtoFields.decode(answer.body).bool(1)) throw new EsphomeApiError('password_required', 'the proxy has an API password; remove it (ESPHome 2026.1 dropped them) and use an encryption key');
      }
      this.send(deviceInfoRequest());
      const deviceInfo = readDeviceInfo((await this.next(MessageType.DeviceInfoResponse)).body);
      this.send(listEntitiesRequest());
      await this.next(MessageType.ListEntitiesDoneResponse);
      this.send(subscribeStatesRequest());
      const early = this.pending.splice(0).map((frame) => this.message(frame));
      return EsphomeApiConnection.adopt(this.socket, this.keys, this.reader, deviceInfo, this.timings, early);
    } finally {
      clearTimeout(timer);
      this.socket.off('data', onData);
      this.socket.off('error', onError);
      this.socket.off('close', onClose);
    }
  }

  private connected(): Promise<void> {
    if (!this.socket.connecting) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.failure !== null) reject(this.failure);
        else if (!this.socket.connecting) resolve();
        else this.wake = check;
      };
      this.socket.once('connect', check);
      this.wake = check;
    });
  }

  private async noiseHandshake(handshake: NoiseHandshake): Promise<void> {
    // An empty frame asks for the server's hello; the handshake's first message follows at once.
    this.socket.write(Buffer.concat([encodeNoiseFrame(Buffer.alloc(0)), encodeNoiseFrame(Buffer.concat([Buffer.from([0]), handshake.writeMessage()]))]));
    const serverHello = await this.nextPayload();
    if (serverHello[0] !== NOISE_INDICATOR) throw new EsphomeApiError('protocol', `the proxy chose an unknown protocol (${serverHello[0] ?? 'none'})`);
    const answer = await this.nextPayload();
    if (answer[0] !== 0) {
      const text = answer.subarray(1).toString('utf8');
      // ESPHome answers "Handshake MAC failure" when our first message does not verify under its key.
      if (/MAC failure/i.test(text)) throw new EsphomeApiError('wrong_key', 'the encryption key does not match the proxy\'s');
      throw new EsphomeApiError('protocol', `the proxy refused the handshake: ${text}`);
    }
    try {
      handshake.readMessage(answer.subarray(1));
    } catch (error) {
      if (error instanceof NoiseDecryptError) throw new EsphomeApiError('wrong_key', 'the encryption key does not match the proxy\'s', { cause: error });
      throw error;
    }
    this.keys = handshake.split();
  }

  private received(data: Buffer): void {
    try {
      this.pending.push(...this.reader.push(data));
    } catch (error) {
      if (error instanceof FrameError && error.unexpectedIndicator !== undefined) {
        if (this.endpoint.psk === null && error.unexpectedIndicator === NOISE_INDICATOR) {
          this.stop(new EsphomeApiError('key_required', 'the proxy requires an encryption key (api: encryption: key: in its YAML)'));
          return;
        }
        if (this.endpoint.psk !== null && error.unexpectedIndicator === PLAINTEXT_INDICATOR) {
          this.stop(new EsphomeApiError('not_encrypted', 'the proxy does not use encryption, but an encryption key is configured for it'));
          return;
        }
      }
      this.stop(new EsphomeApiError('protocol', describeError(error), { cause: error }));
      return;
    }
    this.wake?.();
  }

  private stop(error: EsphomeApiError): void {
    if (this.failure !== null) return;
    this.failure = error;
    this.wake?.();
  }

  private send(message: ApiMessage): void {
    const frame = this.keys === null ? encodePlaintextFrame(message) : encodeNoiseFrame(this.keys.send.encrypt(encodeNoiseMessage(message)));
    this.socket.write(frame);
  }

  private message(frame: ApiMessage | Buffer): ApiMessage {
    if (!Buffer.isBuffer(frame)) return frame;
    if (this.keys === null) throw new EsphomeApiError('protocol', 'an encrypted frame before the handshake ended');
    return decodeNoiseMessage(this.keys.receive.decrypt(frame));
  }

  /** The next raw frame (Noise handshake steps). */
  private async nextPayload(): Promise<Buffer> {
    for (;;) {
      const frame = this.pending.shift();
      if (frame !== undefined) {
        if (!Buffer.isBuffer(frame)) throw new EsphomeApiError('protocol', 'a plaintext message during the Noise handshake');
        return frame;
      }
      await this.arrival();
    }
  }

  /** The next message of this type; the device's pings and time requests meanwhile are answered, others skipped. */
  private async next(type: number): Promise<ApiMessage> {
    for (;;) {
      const frame = this.pending.shift();
      if (frame === undefined) {
        await this.arrival();
        continue;
      }
      const message = this.message(frame);
      if (message.type === type) return message;
      if (message.type === MessageType.PingRequest) this.send(pingResponse());
      else if (message.type === MessageType.GetTimeRequest) this.send(getTimeResponse(Date.now()));
      else if (message.type === MessageType.DisconnectRequest) throw new EsphomeApiError('closed', 'the proxy said goodbye during the set-up');
    }
  }

  private arrival(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.wake = () => {
        this.wake = undefined;
        if (this.failure !== null) reject(this.failure);
        else resolve();
      };
    });
  }
}
