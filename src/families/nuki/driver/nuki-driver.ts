import type { LockCommandType } from '../../../domain/lock-command-type.js';
import type { DeviceInformation } from '../../../domain/lock-vocabulary.js';
import { describeError } from '../../../domain/errors.js';
import { failed, type CommandOutcome, type CommandFailureReason } from '../../../gateway/command-outcome.js';
import { Deadline } from '../../../gateway/deadline.js';
import { TransportError, type Advertisement, type GattConnection } from '../../../gateway/gatt-transport.js';
import { NukiCommand, NukiErrorCode, NukiLockState, NukiLogSortOrder, NukiStatusCode, NukiTrigger, nukiErrorName } from '../protocol/nuki-commands.js';
import {
  decodeChallenge,
  decodeConfig,
  decodeErrorReport,
  decodeKeyturnerStates,
  decodeLogEntry,
  decodeStatus,
  encodeLockAction,
  encodeRequestConfig,
  encodeRequestData,
  encodeRequestLogEntries,
  type NukiKeyturnerStates,
} from '../protocol/nuki-messages.js';
import { NUKI_APPLE_COMPANY_ID, parseNukiBeacon } from '../protocol/nuki-uuids.js';
import type { ConnectionPolicy, DriverContext, LockDriver } from '../../../gateway/lock-driver.js';
import type { NukiDriverVariant } from '../nuki-driver-variant.js';
import { smartLockVariant } from '../smart-lock-variant.js';
import { KeypadError, type KeypadCapability } from '../../../gateway/keypad-access.js';
import { NukiKeypadAccess, keypadFailureOfNukiError } from './nuki-keypad-access.js';
import { encodeUpdateTime } from '../protocol/nuki-keypad-messages.js';
import { NukiKeyturnerChannel, type NukiMessage } from './nuki-keyturner-channel.js';

/** What pairing produced and the driver needs (src/families/nuki/nuki-credential-file.ts keeps it). */
export interface NukiDriverCredentials {
  sharedKey: Buffer;
  authorizationId: number;
  appId: number;
  /** The lock's security PIN: needed to read its log; without it no activity is read. */
  securityPin: number | null;
}

/** Settings of the Nuki driver; every field has a default. */
export interface NukiDriverOptions {
  /** How long the link stays up after the last exchange, ms (default 3 000). */
  idleDisconnectMs?: number;
  /** Log entries asked for per Request Log Entries (default 20). */
  logPageSize?: number;
  /** Advertisement "news" flags within this long after a completed read are the same news, ms (default 1 000). */
  newsCooldownMs?: number;
  /**
   * News our own Lock Action raised is read once no action of ours has run for this long, ms
   * (default 25): back-to-back commands are not kept waiting behind a read of what they did.
   */
  ownNewsSettleMs?: number;
  /** ... but never later than this after it was raised, ms (default 1 000). */
  ownNewsMaxDelayMs?: number;
  /** Which Nuki device (default: a Smart Lock on API 2.2); docs/design.md §4d. */
  variant?: NukiDriverVariant;
}

/** Why an exchange ended without the message it waited for. */
type ExchangeFailure =
  | { kind: 'expired' }
  | { kind: 'link_lost' }
  | { kind: 'lock_error'; code: number }
  | { kind: 'write_failed'; error: unknown }
  /** A reply could not be read (bad CRC, MAC or length): its content is lost. */
  | { kind: 'unreadable'; reason: string };

/** A lock clock off by more than this at a connect is set (docs/design.md §4c). */
const CLOCK_TOLERANCE_MS = 60_000;

/** How long a blocked motor's Error Report is waited for after its states, ms. */
const MOTOR_BLOCKED_REPORT_GRACE_MS = 250;

class ExchangeError extends Error {
  constructor(readonly failure: ExchangeFailure) {
    super(describeFailure(failure));
    this.name = 'ExchangeError';
  }
}

/**
 * The Nuki Smart Lock driver (docs/design.md §4b, docs/nuki.md): the encrypted keyturner channel,
 * Keyturner States, Lock Action with a fresh challenge each time, Request Config for Device
 * Information, and the log read with the security PIN. Its link is on demand — connected for a
 * command or a read, released after a few idle seconds — and its presence and "news" come from
 * the iBeacon advertisement (docs/ble-protocol.md "Connection policy").
 *
 * @example
 * gateway.addLock({ id, address, name: 'Back Door', driver: new NukiDriver(credentials) });
 */
export class NukiDriver implements LockDriver {
  readonly family: string;
  readonly profile: LockDriver['profile'];
  readonly connectionPolicy: ConnectionPolicy;
  private readonly variant: NukiDriverVariant;
  readonly unusableReason: string | null;
  private context: DriverContext | null = null;
  private channel: NukiKeyturnerChannel | null = null;
  private readonly logPageSize: number;
  private readonly newsCooldownMs: number;
  private lastReadAt: number | null = null;
  /** The beacon's news flag in the last advertisement seen (null before the first). */
  private advertisedNews: boolean | null = null;
  /** A Lock Action of ours is running: states it pushes with trigger "system" are ours (`remote`). */
  private actionInFlight = false;
  private warnedNoPin = false;
  private warnedBadPin = false;
  /** The re-pair error was logged; reset by the next message the lock encrypts for us. */
  private reportedNotAuthorized = false;
  /** The newest log index has been learnt once (history before the lock was added is not imported). */
  private logAnchored = false;
  private readonly ownNewsSettleMs: number;
  private readonly ownNewsMaxDelayMs: number;
  /** The lock's clock as its last Keyturner States told it, and when (our clock), for {@link prepare}. */
  private lockClock: { lockTime: number; readAt: number } | null = null;
  /** When our last Lock Action ended (clock ms); news raised shortly after is ours too. */
  private actionEndedAt: number | null = null;
  /** Own news waiting to be read: since when (clock ms), and the timer that will ask for the read. */
  private ownNewsSince: number | null = null;
  private ownNewsTimer: NodeJS.Timeout | null = null;

  /**
   * @param pairing what pairing produced; null for a lock that was never paired (`unpairedReason` says what to do).
   */
  constructor(
    private readonly pairing: NukiDriverCredentials | null,
    options: NukiDriverOptions & { unpairedReason?: string } = {},
  ) {
    this.variant = options.variant ?? smartLockVariant();
    this.family = this.variant.family;
    this.profile = this.variant.profile;
    this.connectionPolicy = { kind: 'on_demand', idleDisconnectMs: options.idleDisconnectMs ?? 3_000 };
    this.logPageSize = options.logPageSize ?? 20;
    this.newsCooldownMs = options.newsCooldownMs ?? 1_000;
    this.ownNewsSettleMs = options.ownNewsSettleMs ?? 25;
    this.ownNewsMaxDelayMs = options.ownNewsMaxDelayMs ?? 1_000;
    this.unusableReason = pairing === null ? (options.unpairedReason ?? 'this Nuki lock is not paired; pair it with "ekey-locks nuki pair".') : null;
  }

  attach(context: DriverContext): void {
    this.context = context;
  }

  async readState(connection: GattConnection): Promise<void> {
    const channel = this.channelFor(connection);
    await this.withOperationDeadline(async (deadline) => {
      channel.clear();
      await this.send(channel, NukiCommand.requestData, encodeRequestData({ command: NukiCommand.keyturnerStates, additionalData: Buffer.alloc(0) }));
      await this.expect(channel, deadline, NukiCommand.keyturnerStates);
    });
  }

  async readDeviceInformation(connection: GattConnection): Promise<DeviceInformation | null> {
    const channel = this.channelFor(connection);
    try {
      return await this.withOperationDeadline(async (deadline) => {
        const nonce = await this.challenge(channel, deadline);
        await this.send(channel, NukiCommand.requestConfig, encodeRequestConfig({ nonce }));
        const config = decodeConfig((await this.expect(channel, deadline, NukiCommand.config)).payload);
        return this.variant.deviceInformation(config);
      });
    } catch (error) {
      this.attached().logger.debug(`Lock ${this.attached().name}: no configuration read: ${describeError(error)}`);
      return null;
    }
  }

  /**
   * Keeps the lock's clock right (docs/design.md §4c: keypad codes' windows and the log run on it):
   * a clock off by more than {@link CLOCK_TOLERANCE_MS} at a connect is set with Update Time (it
   * needs the security PIN). Never throws: a failure is logged and tried again at the next connect.
   */
  async prepare(connection: GattConnection): Promise<void> {
    const context = this.attached();
    const pin = this.pairing?.securityPin ?? null;
    const clock = this.lockClock;
    if (pin === null || clock === null) return;
    const now = context.clock.now();
    const offMs = clock.lockTime + (now - clock.readAt) - now;
    if (Math.abs(offMs) <= CLOCK_TOLERANCE_MS) return;
    const channel = this.channelFor(connection);
    try {
      await this.withOperationDeadline(async (deadline) => {
        const nonce = await this.challenge(channel, deadline);
        await this.send(channel, NukiCommand.updateTime, encodeUpdateTime({ time: context.clock.now(), nonce, securityPin: pin }));
        for (;;) {
          const message = await this.receive(channel, deadline);
          if (message.command === NukiCommand.status && decodeStatus(message.payload).status === NukiStatusCode.COMPLETE) break;
        }
      });
      this.lockClock = { lockTime: context.clock.now(), readAt: context.clock.now() };
      context.logger.info(`Lock ${context.name}: its clock was off by ${Math.round(offMs / 1000)} s; set it.`);
    } catch (error) {
      context.logger.warn(`Lock ${context.name}: its clock is off by ${Math.round(offMs / 1000)} s and could not be set: ${describeError(error)}`);
    }
  }

  /** Keypad codes (docs/design.md §4c), on a connection the core prepared. */
  readonly keypad: KeypadCapability = {
    access: (connection, deadline) => {
      const channel = this.channelFor(connection);
      const keypadError = (error: unknown): Error => {
        if (!(error instanceof ExchangeError)) return error instanceof Error ? error : new Error(String(error));
        const failure = error.failure;
        if (failure.kind === 'lock_error') return new KeypadError(keypadFailureOfNukiError(failure.code), error.message);
        return new KeypadError(failure.kind === 'expired' ? 'timeout' : 'link_lost', error.message);
      };
      return new NukiKeypadAccess(
        {
          securityPin: this.pairing?.securityPin ?? null,
          challenge: (exchangeDeadline) => this.challenge(channel, exchangeDeadline).catch((error: unknown) => Promise.reject(keypadError(error))),
          send: (command, payload) => this.send(channel, command, payload).catch((error: unknown) => Promise.reject(keypadError(error))),
          receive: (exchangeDeadline) => this.receive(channel, exchangeDeadline).catch((error: unknown) => Promise.reject(keypadError(error))),
        },
        deadline,
      );
    },
  };

  async readActivitySince(connection: GattConnection, sequence: number): Promise<void> {
    const context = this.attached();
    const pin = this.pairing?.securityPin ?? null;
    if (pin === null) {
      if (!this.warnedNoPin) {
        this.warnedNoPin = true;
        context.logger.warn(
          `Lock ${context.name}: no security PIN stored, so its log is not read (taps by linked Nuki users, manual turns). Pair again with "ekey-locks nuki pair --pin".`,
        );
      }
      this.lastReadAt = context.clock.now();
      return;
    }
    const channel = this.channelFor(connection);
    let since = sequence;
    if (since === 0 && !this.logAnchored) {
      // A lock seen for the first time: start after its newest entry, history before us is not ours to replay.
      const newest = await this.readLogPage(channel, pin, 0, 1, NukiLogSortOrder.descending, false);
      if (newest === 'bad_pin') return;
      this.logAnchored = true;
      if (newest.highest > 0) {
        context.restartSequenceAt(newest.highest);
        since = newest.highest;
      }
    }
    this.logAnchored = true;
    for (;;) {
      const page = await this.readLogPage(channel, pin, since, this.logPageSize, NukiLogSortOrder.ascending, true);
      if (page === 'bad_pin') return;
      if (page.count < this.logPageSize || page.highest <= since) break;
      since = page.highest;
    }
    this.lastReadAt = context.clock.now();
  }

  async executeCommand(connection: GattConnection, command: LockCommandType, deadline: Deadline): Promise<CommandOutcome> {
    const context = this.attached();
    // The engine sends only the commands of the lock's family (docs/design.md §4d).
    const actions = this.variant.actionsFor(command);
    if (actions === null) return failed('delivery_failed');
    const action = command;
    const channel = this.channelFor(connection);
    this.actionInFlight = true;
    this.holdOwnNews();
    try {
      // Two tries: the second only when the lock said our challenge was spent (K_ERROR_BAD_NONCE).
      for (let attempt = 0; attempt < 2; attempt += 1) {
        try {
          return await this.lockActions(channel, action, actions, deadline);
        } catch (error) {
          if (!(error instanceof ExchangeError)) throw error;
          const failure = error.failure;
          if (failure.kind === 'lock_error' && failure.code === NukiErrorCode.K_ERROR_BAD_NONCE && attempt === 0) continue;
          const reason = commandFailure(failure);
          const level = reason === 'jammed' || reason === 'timeout' ? 'info' : 'warn';
          context.logger[level](`Lock ${context.name}: ${action} failed: ${describeFailure(failure)}.`);
          return failed(reason);
        }
      }
      return failed('delivery_failed');
    } finally {
      this.actionInFlight = false;
      this.actionEndedAt = context.clock.now();
      if (this.ownNewsSince !== null) this.scheduleOwnNewsRead();
    }
  }

  handleNotification(connection: GattConnection, characteristic: string, value: Buffer): void {
    if (characteristic !== 'usdio') return;
    this.channelFor(connection).indication(value);
  }

  linkLost(): void {
    this.channel?.linkLost();
    this.channel = null;
  }

  interpretAdvertisement(advertisement: Advertisement): boolean {
    const data = advertisement.manufacturerData.get(NUKI_APPLE_COMPANY_ID);
    if (data === undefined) return false;
    const beacon = parseNukiBeacon(data);
    if (beacon === null) return false;
    const raised = beacon.newState && this.advertisedNews === false;
    this.advertisedNews = beacon.newState;
    if (!beacon.newState) return false;
    const context = this.attached();
    // A read of own news is scheduled: it reads whatever else happened too.
    if (this.ownNewsSince !== null) return false;
    if (raised) {
      // The flag our own Lock Action raised (the lock flags every change, ours too): we know the
      // state it led to, so the read — state and log, which may hold someone else's turn as well —
      // waits until our actions pause (ownNewsSettleMs, at most ownNewsMaxDelayMs) instead of
      // holding up the next command. docs/nuki.md "Connection policy and battery".
      if (this.actionInFlight || (this.actionEndedAt !== null && context.clock.now() - this.actionEndedAt < this.newsCooldownMs)) {
        this.ownNewsSince = context.clock.now();
        this.scheduleOwnNewsRead();
        return false;
      }
      // A flag seen going up is news whenever it comes (e.g. the move of a tap ending just after a
      // read that saw it start).
      return true;
    }
    // A flag that stayed up may be an advertisement sent before our read cleared it: old news for
    // a short while, then news again (the lock was not read after all).
    return this.lastReadAt === null || context.clock.now() - this.lastReadAt >= this.newsCooldownMs;
  }

  /** An action of ours starts: a pending read of own news waits for it, unless it waited long enough. */
  private holdOwnNews(): void {
    if (this.ownNewsTimer === null || this.ownNewsSince === null) return;
    if (this.attached().clock.now() - this.ownNewsSince >= this.ownNewsMaxDelayMs) return;
    clearTimeout(this.ownNewsTimer);
    this.ownNewsTimer = null;
  }

  /** Asks the core for a read once our actions have paused for ownNewsSettleMs (none while one runs). */
  private scheduleOwnNewsRead(): void {
    if (this.ownNewsTimer !== null) clearTimeout(this.ownNewsTimer);
    this.ownNewsTimer = null;
    if (this.actionInFlight || this.ownNewsSince === null) return;
    const context = this.attached();
    const left = this.ownNewsMaxDelayMs - (context.clock.now() - this.ownNewsSince);
    this.ownNewsTimer = setTimeout(
      () => {
        this.ownNewsTimer = null;
        this.ownNewsSince = null;
        context.requestRefresh();
      },
      Math.max(0, Math.min(this.ownNewsSettleMs, left)),
    );
    this.ownNewsTimer.unref();
  }

  /**
   * Each Lock Action of the command in turn (the Opener's `lock` sends two): challenge, Lock
   * Action, ACCEPTED, states, COMPLETE; the outcome from the final state after the last.
   */
  private async lockActions(channel: NukiKeyturnerChannel, command: LockCommandType, actions: readonly number[], deadline: Deadline): Promise<CommandOutcome> {
    let last: NukiKeyturnerStates | null = null;
    for (const action of actions) {
      const outcome = await this.lockAction(channel, action, deadline);
      if ('status' in outcome) return outcome;
      last = outcome.states;
    }
    if (last === null) return failed('delivery_failed');
    const reached = this.variant.reached(command, last);
    if (reached.done) return { status: 'completed', bolt: reached.bolt };
    this.attached().logger.warn(`Lock ${this.attached().name} completed the ${command} but reports lock state ${last.lockState}.`);
    return failed('delivery_failed');
  }

  /** One Lock Action up to COMPLETE: the final states, or a failed outcome (a blocked motor). */
  private async lockAction(channel: NukiKeyturnerChannel, action: number, deadline: Deadline): Promise<{ states: NukiKeyturnerStates } | CommandOutcome> {
    const credentials = this.paired();
    const nonce = await this.challenge(channel, deadline);
    await this.send(channel, NukiCommand.lockAction, encodeLockAction({ action, appId: credentials.appId, flags: 0, nameSuffix: null, nonce }));
    let last: NukiKeyturnerStates | null = null;
    for (;;) {
      const message = await this.receive(channel, deadline);
      if (message.command === NukiCommand.keyturnerStates) {
        last = decodeKeyturnerStates(message.payload);
        if (last.lockState === NukiLockState.motorBlocked && this.variant.blocked(last)) {
          await this.awaitMotorBlockedReport(channel, deadline);
          return failed('jammed');
        }
        continue;
      }
      if (message.command !== NukiCommand.status) continue;
      const status = decodeStatus(message.payload).status;
      if (status === NukiStatusCode.ACCEPTED) continue;
      if (status !== NukiStatusCode.COMPLETE) continue;
      // COMPLETE: the final state decides; ask for it when the lock sent none after moving.
      if (last === null || this.variant.moving(last)) {
        await this.send(channel, NukiCommand.requestData, encodeRequestData({ command: NukiCommand.keyturnerStates, additionalData: Buffer.alloc(0) }));
        last = decodeKeyturnerStates((await this.expect(channel, deadline, NukiCommand.keyturnerStates)).payload);
      }
      if (this.variant.blocked(last)) return failed('jammed');
      return { states: last };
    }
  }

  /**
   * A blocked motor is reported as states (0xFE) and then an Error Report K_ERROR_MOTOR_BLOCKED:
   * the report is part of this exchange, so it is awaited (briefly: a lock may not send it) and
   * never taken for the answer to the next request.
   */
  private async awaitMotorBlockedReport(channel: NukiKeyturnerChannel, deadline: Deadline): Promise<void> {
    const grace = new Deadline(Math.min(MOTOR_BLOCKED_REPORT_GRACE_MS, deadline.remaining()));
    try {
      for (;;) {
        const message = await channel.receive(grace);
        if (message === 'expired' || message === 'link_lost' || 'unreadable' in message) return;
        if (message.command === NukiCommand.errorReport) return;
      }
    } finally {
      grace.cancel();
    }
  }

  /** One page of the log; entries become activity. `bad_pin` ends reading for this connection. */
  private async readLogPage(
    channel: NukiKeyturnerChannel,
    securityPin: number,
    startIndex: number,
    count: number,
    sortOrder: number,
    report: boolean,
  ): Promise<{ count: number; highest: number } | 'bad_pin'> {
    const context = this.attached();
    try {
      return await this.withOperationDeadline(async (deadline) => {
        const nonce = await this.challenge(channel, deadline);
        await this.send(channel, NukiCommand.requestLogEntries, encodeRequestLogEntries({ startIndex, count, sortOrder, totalCount: false, nonce, securityPin, ...(this.variant.apiLevel === '2.3' ? { pinSize: 4 as const } : {}) }));
        let received = 0;
        let highest = 0;
        for (;;) {
          const message = await this.receive(channel, deadline);
          if (message.command === NukiCommand.logEntry) {
            const entry = decodeLogEntry(message.payload);
            received += 1;
            highest = Math.max(highest, entry.index);
            if (report) {
              const record = this.variant.activityOf(entry, this.paired().authorizationId, context.clock.now());
              if (record !== null) context.reportActivity(record);
            }
            continue;
          }
          if (message.command === NukiCommand.status && decodeStatus(message.payload).status === NukiStatusCode.COMPLETE) return { count: received, highest };
        }
      });
    } catch (error) {
      const failure = exchangeFailureOf(error);
      if (failure?.kind === 'lock_error' && failure.code === NukiErrorCode.K_ERROR_BAD_PIN) {
        if (!this.warnedBadPin) {
          this.warnedBadPin = true;
          context.logger.warn(`Lock ${context.name}: the lock refused the stored security PIN, so its log is not read. Pair again with the right "--pin".`);
        }
        return 'bad_pin';
      }
      throw error;
    }
  }

  /** Request Data(Challenge) → the lock's fresh nonce nK (single use). */
  private async challenge(channel: NukiKeyturnerChannel, deadline: Deadline): Promise<Buffer> {
    channel.clear();
    await this.send(channel, NukiCommand.requestData, encodeRequestData({ command: NukiCommand.challenge, additionalData: Buffer.alloc(0) }));
    return decodeChallenge((await this.expect(channel, deadline, NukiCommand.challenge)).payload).nonce;
  }

  /** The next message of `command`; an Error Report ends the exchange. @throws ExchangeError */
  private async expect(channel: NukiKeyturnerChannel, deadline: Deadline, command: number): Promise<NukiMessage> {
    for (;;) {
      const message = await this.receive(channel, deadline);
      if (message.command === command) return message;
    }
  }

  /** The next message; an Error Report, an unreadable reply, silence and a lost link are thrown. @throws ExchangeError */
  private async receive(channel: NukiKeyturnerChannel, deadline: Deadline): Promise<NukiMessage> {
    const message = await channel.receive(deadline);
    if (message === 'expired') throw new ExchangeError({ kind: 'expired' });
    if (message === 'link_lost') throw new ExchangeError({ kind: 'link_lost' });
    if ('unreadable' in message) throw new ExchangeError({ kind: 'unreadable', reason: message.unreadable });
    if (message.command === NukiCommand.errorReport) {
      const code = decodeErrorReport(message.payload).errorCode;
      if (code === NukiErrorCode.K_ERROR_NOT_AUTHORIZED) this.reportNotAuthorized();
      throw new ExchangeError({ kind: 'lock_error', code });
    }
    return message;
  }

  /** §6 K_ERROR_NOT_AUTHORIZED: the lock lost our authorization (reset, removed in the app); only pairing again helps. Logged once per episode. */
  private reportNotAuthorized(): void {
    if (this.reportedNotAuthorized) return;
    this.reportedNotAuthorized = true;
    const context = this.attached();
    context.logger.error(`Lock ${context.name}: the lock no longer knows our authorization; pair it again with "ekey-locks nuki pair".`);
  }

  private async send(channel: NukiKeyturnerChannel, command: number, payload: Buffer): Promise<void> {
    try {
      await channel.send(command, payload);
    } catch (error) {
      throw new ExchangeError({ kind: 'write_failed', error });
    }
  }

  /** Every message: Keyturner States update the state in memory whoever asked for them. */
  private received(message: NukiMessage): void {
    // The unencrypted Error Report is the only message the lock does not encrypt for us.
    if (message.command !== NukiCommand.errorReport) this.reportedNotAuthorized = false;
    if (message.command !== NukiCommand.keyturnerStates) return;
    const context = this.attached();
    let states: NukiKeyturnerStates;
    try {
      states = decodeKeyturnerStates(message.payload);
    } catch (error) {
      context.logger.warn(`Lock ${context.name}: unreadable Keyturner States: ${describeError(error)}`);
      return;
    }
    if (states.currentTime !== null) this.lockClock = { lockTime: states.currentTime, readAt: context.clock.now() };
    // During our Lock Action the lock's "system" trigger is us; other triggers name themselves.
    const report = this.variant.statesReport(states);
    const source = report.source ?? (this.actionInFlight && states.trigger === NukiTrigger.system ? 'remote' : null);
    context.reportBolt(report.bolt, source);
    if (report.battery !== null) context.reportBattery(report.battery);
    if (report.door !== null) context.reportDoor(report.door);
    if (report.modes !== null) context.reportModes(report.modes);
  }

  private channelFor(connection: GattConnection): NukiKeyturnerChannel {
    if (this.channel?.on === connection) return this.channel;
    const context = this.attached();
    this.channel = new NukiKeyturnerChannel(connection, this.paired(), {
      dropped: (reason) => {
        context.logger.warn(`Lock ${context.name}: dropped a keyturner message (${reason}).`);
      },
      received: (message) => {
        this.received(message);
      },
    });
    return this.channel;
  }

  private async withOperationDeadline<T>(work: (deadline: Deadline) => Promise<T>): Promise<T> {
    const deadline = new Deadline(this.attached().operationTimeoutMs);
    try {
      return await work(deadline);
    } catch (error) {
      if (error instanceof ExchangeError) throw new TransportError('operation_failed', error.message, { cause: error });
      throw error;
    } finally {
      deadline.cancel();
    }
  }

  private paired(): NukiDriverCredentials {
    if (this.pairing === null) throw new Error('the Nuki lock is not paired');
    return this.pairing;
  }

  private attached(): DriverContext {
    if (this.context === null) throw new Error('NukiDriver used before attach()');
    return this.context;
  }
}

/** The exchange failure behind an error (also when wrapped in a TransportError). */
function exchangeFailureOf(error: unknown): ExchangeFailure | null {
  if (error instanceof ExchangeError) return error.failure;
  if (error instanceof TransportError && error.cause instanceof ExchangeError) return error.cause.failure;
  return null;
}

/** docs/design.md §4b: motor blocked → jammed; no answer in time → timeout; link and protocol errors → delivery_failed. */
function commandFailure(failure: ExchangeFailure): CommandFailureReason {
  switch (failure.kind) {
    case 'expired':
      return 'timeout';
    case 'link_lost':
    case 'write_failed':
    case 'unreadable':
      return 'delivery_failed';
    case 'lock_error':
      return failure.code === NukiErrorCode.K_ERROR_MOTOR_BLOCKED ? 'jammed' : 'delivery_failed';
  }
}

function describeFailure(failure: ExchangeFailure): string {
  switch (failure.kind) {
    case 'expired':
      return 'no answer in time';
    case 'link_lost':
      return 'the link dropped';
    case 'write_failed':
      return `writing failed (${describeError(failure.error)})`;
    case 'lock_error':
      return `the lock answered ${nukiErrorName(failure.code)}`;
    case 'unreadable':
      return `a reply could not be read (${failure.reason})`;
  }
}
