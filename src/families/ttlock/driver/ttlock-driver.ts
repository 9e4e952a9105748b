import type { LockCommandType } from '../../../domain/lock-command-type.js';
import type { DeviceInformation } from '../../../domain/lock-vocabulary.js';
import { describeError } from '../../../domain/errors.js';
import { failed, type CommandOutcome, type CommandFailureReason } from '../../../gateway/command-outcome.js';
import { Deadline } from '../../../gateway/deadline.js';
import { TransportError, type Advertisement, type GattConnection } from '../../../gateway/gatt-transport.js';
import type { KeypadCapability } from '../../../gateway/keypad-access.js';
import type { ConnectionPolicy, DriverContext, LockDriver } from '../../../gateway/lock-driver.js';
import { parseTtlockAdvertisement, TtlockAdvertFlag } from '../protocol/ttlock-advertisement.js';
import { TtlockCommand, TtlockError } from '../protocol/ttlock-commands.js';
import type { TtlockLockVersion } from '../protocol/ttlock-frame.js';
import {
  challengeAnswer,
  decodeBattery,
  decodeBoltCommandReply,
  decodeChallenge,
  decodeDeviceInfoText,
  decodeLockTime,
  decodeStatus,
  encodeBoltCommand,
  encodeCalibrateTime,
  encodeCheckAdmin,
  encodeCheckRandom,
  SCIENER,
  TtlockDeviceInfo,
} from '../protocol/ttlock-messages.js';
import { decodeLogPage, encodeLogRequest } from '../protocol/ttlock-operation-log.js';
import { wallClockAt, wallClockMs } from '../protocol/ttlock-wall-clock.js';
import { TtlockChannel, TtlockExchangeError } from './ttlock-channel.js';
import { TTLOCK_GATT_PROFILE } from './ttlock-gatt-profile.js';
import { TtlockKeypadAccess } from './ttlock-keypad-access.js';
import { activityOfTtlockRecord } from './ttlock-log-mapping.js';
import { nextOffsetChange } from './ttlock-zone-clock.js';

/** What pairing (or an import) gave the service and the driver needs; secret, never logged. */
export interface TtlockDriverCredentials {
  aesKey: Buffer;
  adminPs: number;
  unlockKey: number;
  /** The uid the service acts under; its app records in the log are our own commands. */
  uid: number;
  lockFlagPos: number;
  /** The header the lock answers with (its group and org). */
  version: TtlockLockVersion;
  /** When the lock joined the service, ms: log records before it are not replayed as events. */
  since: number;
}

/** Settings of the TTLock driver; every field has a default. */
export interface TtlockDriverOptions {
  /** The lock's IANA zone: its clock, its passcode windows and its log are local wall-clock time. */
  timeZone: string;
  /** Released after this long without an exchange, ms (default 2 000; the lock drops an idle link after about 5 s). */
  idleDisconnectMs?: number;
  /** Pause before another attempt within a command's deadline, ms (default 300). */
  retryPauseMs?: number;
  /** At most this many log records per read; more are read at the next (default 32: one round trip each). */
  logRecordsPerRead?: number;
  /** A "new records" flag that stays up is looked at again after this long, ms (default 300 000; some locks never clear it). */
  staleNewsMs?: number;
}

/** A lock clock off by more than this at a connect is set (docs/design.md §4c, §4f). */
const CLOCK_TOLERANCE_MS = 60_000;

/** setTimeout holds at most ~24.8 days: a later DST change is planned again then. */
const MAX_TIMER_MS = 2_000_000_000;

/**
 * The TTLock driver (docs/design.md §4f, docs/ttlock.md): the encrypted command channel, the
 * admin login (CHECK_ADMIN, CHECK_RANDOM), lock and unlock with the challenge answer, the battery,
 * the lock's clock kept right (and read again at each DST change), passcodes as keypad codes, and
 * the operation log read back by explicit sequence. Its link is per command: the lock drops an
 * idle link after about 5 s and wakes only briefly, so the core connects for each command and
 * tries again within the command's deadline (`retryPauseMs`). The bolt state is the lock's own
 * idea of it — the last position its motor drove to: a TTLock does not notice a turn by hand, and
 * the family says so (`boltAssumed`).
 */
export class TtlockDriver implements LockDriver {
  readonly family = 'ttlock';
  readonly profile = TTLOCK_GATT_PROFILE;
  readonly connectionPolicy: ConnectionPolicy;
  readonly unusableReason: string | null;
  private context: DriverContext | null = null;
  private channel: TtlockChannel | null = null;
  private readonly zone: string;
  private readonly logRecordsPerRead: number;
  private readonly staleNewsMs: number;
  /** The bolt bit and the "new records" bit of the last advertisement (null before the first). */
  private advertisedUnlocked: boolean | null = null;
  private advertisedRecords: boolean | null = null;
  private lastLogReadAt: number | null = null;
  /** Records after `after` up to `to` were read and are no bolt moves: the next read starts after them. */
  private skip: { after: number; to: number } | null = null;
  private dstTimer: NodeJS.Timeout | null = null;
  private warnedSettingMode = false;
  private warnedCredentials = false;
  private warnedCrc = false;

  constructor(
    private readonly secrets: TtlockDriverCredentials | null,
    options: TtlockDriverOptions & { unusableReason?: string },
  ) {
    this.zone = options.timeZone;
    this.connectionPolicy = { kind: 'on_demand', idleDisconnectMs: options.idleDisconnectMs ?? 2_000, retryPauseMs: options.retryPauseMs ?? 300 };
    this.logRecordsPerRead = options.logRecordsPerRead ?? 32;
    this.staleNewsMs = options.staleNewsMs ?? 300_000;
    this.unusableReason = secrets === null ? (options.unusableReason ?? 'this TTLock is not paired; pair it with "ekey-locks ttlock pair".') : null;
  }

  attach(context: DriverContext): void {
    this.context = context;
  }

  /**
   * SEARCH_BICYCLE_STATUS: the battery; the bolt as the lock believes it until an advertisement
   * says. A lock that refuses the query (a model without it) is read from its advertisements
   * alone; a link that fails fails the connect.
   */
  async readState(connection: GattConnection): Promise<void> {
    const context = this.attached();
    let data: Buffer;
    try {
      data = await this.operation(connection, (channel, deadline) => channel.request(TtlockCommand.searchStatus, SCIENER, deadline));
    } catch (error) {
      if (error instanceof TransportError && error.cause instanceof TtlockExchangeError && error.cause.failure.kind === 'refused') {
        context.logger.debug(`Lock ${context.name}: it answers no status query (${error.message}); its advertisements tell.`);
        return;
      }
      throw error;
    }
    const status = decodeStatus(data);
    if (status.battery <= 100) context.reportBattery(status.battery / 100);
    if (this.advertisedUnlocked === null) context.reportBolt(status.state === 1 ? 'unlocked' : 'locked', null);
  }

  async readDeviceInformation(connection: GattConnection): Promise<DeviceInformation | null> {
    const context = this.attached();
    try {
      if (connection.has('manufacturer')) {
        const text = async (name: string): Promise<string> => (connection.has(name) ? (await connection.read(name)).toString('utf8').replace(/\0+$/, '').trim() : '');
        return { manufacturer: await text('manufacturer'), model: await text('model'), serial: '', firmware: await text('firmware') };
      }
      return await this.operation(connection, async (channel, deadline) => {
        const item = async (type: number): Promise<string> => decodeDeviceInfoText(await channel.request(TtlockCommand.readDeviceInfo, Buffer.from([type]), deadline));
        return { manufacturer: 'TTLock', model: await item(TtlockDeviceInfo.modelNumber), serial: '', firmware: await item(TtlockDeviceInfo.firmwareRevision) };
      });
    } catch (error) {
      context.logger.debug(`Lock ${context.name}: no device information read: ${describeError(error)}`);
      return null;
    }
  }

  /**
   * Keeps the lock's clock right (docs/design.md §4c: passcode windows and the log run on it): a
   * clock off by more than a minute at a connect is set to the local time of the lock's zone, with
   * the admin login. Also plans a read at the zone's next DST change (the lock's clock does not
   * change by itself). Never throws: a failure is logged and tried again at the next connect.
   */
  async prepare(connection: GattConnection): Promise<void> {
    const context = this.attached();
    this.planDstRead();
    try {
      await this.operation(connection, async (channel, deadline) => {
        const lockTime = decodeLockTime(await channel.request(TtlockCommand.getLockTime, Buffer.alloc(0), deadline));
        const offMs = wallClockMs(lockTime) - wallClockMs(wallClockAt(context.clock.now(), this.zone));
        if (Math.abs(offMs) <= CLOCK_TOLERANCE_MS) return;
        await this.login(channel, deadline);
        await channel.request(TtlockCommand.calibrateTime, encodeCalibrateTime(wallClockAt(context.clock.now(), this.zone)), deadline);
        context.logger.info(`Lock ${context.name}: its clock was off by ${Math.round(offMs / 1000)} s; set it.`);
      });
    } catch (error) {
      context.logger.warn(`Lock ${context.name}: its clock could not be checked or set now: ${describeError(error)}`);
    }
  }

  /** Keypad codes (docs/design.md §4c, §4f), on a connection the core prepared. */
  readonly keypad: KeypadCapability = {
    access: (connection, deadline) => {
      const channel = this.channelFor(connection);
      return new TtlockKeypadAccess(
        {
          login: (exchangeDeadline) => this.login(channel, exchangeDeadline),
          request: (command, payload, exchangeDeadline) => channel.request(command, payload, exchangeDeadline),
        },
        this.zone,
        deadline,
      );
    },
  };

  /**
   * Reads the log after `sequence` by explicit sequence (a repeatable read; the lock's own "since
   * last read" bookmark is never moved), at most {@link TtlockDriverOptions.logRecordsPerRead}
   * records per connect — one round trip each — asking for another read when more are left.
   */
  async readActivitySince(connection: GattConnection, sequence: number): Promise<void> {
    const context = this.attached();
    const paired = this.paired();
    let cursor = this.skip !== null && this.skip.after === sequence ? this.skip.to : sequence;
    let lastReported = sequence;
    let read = 0;
    let more = false;
    try {
      await this.operation(connection, async (channel, deadline) => {
        await this.login(channel, deadline);
      });
    } catch (error) {
      // The lock refuses our admin (reset, paired elsewhere; said once): the log stays unread, the link stays usable.
      if (error instanceof TransportError && error.cause instanceof TtlockExchangeError && error.cause.failure.kind === 'refused') return;
      throw error;
    }
    for (;;) {
      if (read >= this.logRecordsPerRead) {
        more = true;
        break;
      }
      let data: Buffer;
      try {
        data = await this.operation(connection, (channel, deadline) => channel.request(TtlockCommand.operationLog, encodeLogRequest(cursor), deadline));
      } catch (error) {
        // A refusal is a stale cursor (ttlock-rs §7a), not the end: stop here, read again next time.
        if (error instanceof TransportError && error.cause instanceof TtlockExchangeError && error.cause.failure.kind === 'refused') {
          context.logger.debug(`Lock ${context.name}: its log refused the read after #${cursor}; read again at the next connect.`);
          break;
        }
        throw error;
      }
      const page = decodeLogPage(data);
      if (page.end || page.nextSequence <= cursor) break;
      page.records.forEach((record, index) => {
        const number = page.nextSequence - (page.records.length - 1 - index);
        if (number <= cursor) return;
        const activity = activityOfTtlockRecord(record, number, { ourUid: paired.uid, zone: this.zone, since: paired.since });
        if (activity === null) return;
        context.reportActivity(activity);
        lastReported = number;
      });
      read += Math.max(1, page.records.length);
      cursor = page.nextSequence;
    }
    this.skip = cursor > lastReported ? { after: lastReported, to: cursor } : null;
    this.lastLogReadAt = context.clock.now();
    if (more) context.requestRefresh();
  }

  async executeCommand(connection: GattConnection, action: LockCommandType, deadline: Deadline): Promise<CommandOutcome> {
    const context = this.attached();
    if (action !== 'lock' && action !== 'unlock') return failed('delivery_failed');
    const credentials = this.paired();
    const channel = this.channelFor(connection);
    try {
      const ps = decodeChallenge(await channel.request(TtlockCommand.checkAdmin, encodeCheckAdmin(credentials), deadline));
      const command = action === 'unlock' ? TtlockCommand.unlock : TtlockCommand.lock;
      const data = await channel.request(command, encodeBoltCommand({ answer: challengeAnswer(ps, credentials.unlockKey), unixSeconds: Math.floor(context.clock.now() / 1000) }), deadline);
      const battery = data.length >= 15 ? decodeBoltCommandReply(data).battery : decodeBattery(data);
      if (battery !== null && battery <= 100) context.reportBattery(battery / 100);
      return { status: 'completed', bolt: action === 'unlock' ? 'unlocked' : 'locked' };
    } catch (error) {
      if (!(error instanceof TtlockExchangeError)) {
        context.logger.warn(`Lock ${context.name}: ${action} failed: ${describeError(error)}.`);
        return failed('delivery_failed');
      }
      const reason = this.commandFailure(error);
      const level = reason === 'timeout' || error.failure.kind === 'link_lost' ? 'info' : 'warn';
      context.logger[level](`Lock ${context.name}: ${action} failed: ${error.message}.`);
      return failed(reason);
    }
  }

  handleNotification(connection: GattConnection, characteristic: string, value: Buffer): void {
    if (characteristic !== 'notify') return;
    this.channelFor(connection).chunk(value);
  }

  linkLost(): void {
    this.channel?.linkLost();
    this.channel = null;
  }

  /**
   * The advertisement: the battery, the lock's own idea of its bolt (bit 0x01), and news — the
   * bolt bit changing or the "new records" bit rising (a keypad entry, say) make the core read the
   * lock; a bit that stays up is looked at again after `staleNewsMs` (some locks never clear it).
   */
  interpretAdvertisement(advertisement: Advertisement): boolean {
    const parsed = parseTtlockAdvertisement(advertisement.manufacturerData);
    if (parsed === null) return false;
    const context = this.attached();
    if (parsed.battery !== null) context.reportBattery(parsed.battery / 100);
    if ((parsed.params & TtlockAdvertFlag.settingMode) !== 0 && !this.warnedSettingMode) {
      this.warnedSettingMode = true;
      context.logger.warn(`Lock ${context.name}: it is in setting mode, as an unpaired lock is: if it was reset, pair it again ("ekey-locks ttlock pair").`);
    }
    const unlocked = (parsed.params & TtlockAdvertFlag.unlocked) !== 0;
    const records = (parsed.params & TtlockAdvertFlag.newRecords) !== 0;
    const first = this.advertisedUnlocked === null;
    const boltChanged = !first && this.advertisedUnlocked !== unlocked;
    const recordsRose = records && this.advertisedRecords === false;
    this.advertisedUnlocked = unlocked;
    this.advertisedRecords = records;
    // Only a change is news about the bolt: an advertisement that repeats the lock's idea of it
    // must not overwrite what a command learnt since (a jam: the motor did not get there).
    if (first || boltChanged) context.reportBolt(unlocked ? 'unlocked' : 'locked', null);
    if (boltChanged || recordsRose) return true;
    return records && this.lastLogReadAt !== null && context.clock.now() - this.lastLogReadAt >= this.staleNewsMs;
  }

  /** The admin login: CHECK_ADMIN, then CHECK_RANDOM with the challenge answer. @throws TtlockExchangeError */
  private async login(channel: TtlockChannel, deadline: Deadline): Promise<void> {
    const credentials = this.paired();
    const ps = decodeChallenge(await channel.request(TtlockCommand.checkAdmin, encodeCheckAdmin(credentials), deadline));
    await channel.request(TtlockCommand.checkRandom, encodeCheckRandom(challengeAnswer(ps, credentials.unlockKey)), deadline);
  }

  /** One exchange (or a few) under the operation budget; its failures are thrown as TransportErrors. */
  private async operation<T>(connection: GattConnection, work: (channel: TtlockChannel, deadline: Deadline) => Promise<T>): Promise<T> {
    const deadline = new Deadline(this.attached().operationTimeoutMs);
    try {
      return await work(this.channelFor(connection), deadline);
    } catch (error) {
      if (error instanceof TtlockExchangeError) {
        this.noticeCredentials(error);
        throw new TransportError('operation_failed', error.message, { cause: error });
      }
      throw error;
    } finally {
      deadline.cancel();
    }
  }

  /** docs/design.md §4f: a link or a silence is a delivery failure or a timeout; a motor that could not finish is a jam. */
  private commandFailure(error: TtlockExchangeError): CommandFailureReason {
    const failure = error.failure;
    this.noticeCredentials(error);
    switch (failure.kind) {
      case 'expired':
        return 'timeout';
      case 'link_lost':
      case 'write_failed':
      case 'unreadable':
        return 'delivery_failed';
      case 'refused':
        // "Operation failed" to a lock or unlock: the motor could not finish the move (docs/ttlock.md).
        return (failure.command === TtlockCommand.unlock || failure.command === TtlockCommand.lock) && failure.code === TtlockError.operationFailed ? 'jammed' : 'delivery_failed';
    }
  }

  /** A lock that no longer takes our admin credentials (reset, paired anew elsewhere): said once until it takes them again. */
  private noticeCredentials(error: TtlockExchangeError): void {
    const failure = error.failure;
    if (failure.kind !== 'refused') return;
    const credentialCodes: readonly number[] = [TtlockError.adminCheckFailed, TtlockError.noAdmin, TtlockError.keyInvalid, TtlockError.aesParseError];
    if (!credentialCodes.includes(failure.code) || this.warnedCredentials) return;
    this.warnedCredentials = true;
    const context = this.attached();
    context.logger.error(`Lock ${context.name}: the lock no longer accepts the service's admin credentials (${error.message}); was it reset or paired elsewhere? Pair it again with "ekey-locks ttlock pair".`);
  }

  /** Reads the lock again at the zone's next DST change: its clock then needs setting. */
  private planDstRead(): void {
    if (this.dstTimer !== null) return;
    const context = this.attached();
    const now = context.clock.now();
    const change = nextOffsetChange(now, this.zone);
    if (change === null) return;
    this.dstTimer = setTimeout(
      () => {
        this.dstTimer = null;
        if (context.clock.now() >= change) context.requestRefresh();
        else this.planDstRead();
      },
      Math.min(MAX_TIMER_MS, Math.max(1, change - now)),
    );
    this.dstTimer.unref();
  }

  private channelFor(connection: GattConnection): TtlockChannel {
    if (this.channel?.on === connection) return this.channel;
    const credentials = this.paired();
    this.channel = new TtlockChannel(
      connection,
      { key: credentials.aesKey, version: credentials.version },
      {
        badCrc: () => {
          if (this.warnedCrc) return;
          this.warnedCrc = true;
          const context = this.attached();
          context.logger.warn(`Lock ${context.name}: a reply's CRC did not match; read anyway (it decrypted).`);
        },
      },
    );
    return this.channel;
  }

  private paired(): TtlockDriverCredentials {
    if (this.secrets === null) throw new Error('the TTLock is not paired');
    return this.secrets;
  }

  private attached(): DriverContext {
    if (this.context === null) throw new Error('TtlockDriver used before attach()');
    return this.context;
  }
}

