import { EXPIRED, type Deadline } from '../../../gateway/deadline.js';
import type { GattConnection } from '../../../gateway/gatt-transport.js';
import { parseTtlockReply, ttlockCommandName, ttlockErrorName, type TtlockReply } from '../protocol/ttlock-commands.js';
import { TtlockCipherError } from '../protocol/ttlock-crypto.js';
import { decryptTtlockFrame, encodeTtlockFrame, parseTtlockFrame, TtlockFrameError, type TtlockLockVersion } from '../protocol/ttlock-frame.js';
import { TtlockFrameReassembler } from '../protocol/ttlock-frame-reassembler.js';

/** How many bytes one write carries: a TTLock takes its frames in 20-byte chunks (ATT MTU 23). */
export const TTLOCK_WRITE_CHUNK = 20;

/** Why an exchange ended without the reply it waited for. */
export type TtlockExchangeFailure =
  | { kind: 'expired' }
  | { kind: 'link_lost' }
  | { kind: 'write_failed'; error: unknown }
  /** A reply that could not be read (it does not decrypt, or is not a reply). */
  | { kind: 'unreadable'; reason: string }
  /** The lock answered the command with a failure status and this error code. */
  | { kind: 'refused'; command: number; code: number };

/** An exchange that ended without its reply; `failure` says why. */
export class TtlockExchangeError extends Error {
  constructor(readonly failure: TtlockExchangeFailure) {
    super(describeTtlockFailure(failure));
    this.name = 'TtlockExchangeError';
  }
}

export function describeTtlockFailure(failure: TtlockExchangeFailure): string {
  switch (failure.kind) {
    case 'expired':
      return 'no answer in time';
    case 'link_lost':
      return 'the link dropped';
    case 'write_failed':
      return `writing failed (${failure.error instanceof Error ? failure.error.message : String(failure.error)})`;
    case 'unreadable':
      return `a reply could not be read (${failure.reason})`;
    case 'refused':
      return `the lock refused ${ttlockCommandName(failure.command)}: ${ttlockErrorName(failure.code)}`;
  }
}

/** The key and header a channel speaks with; pairing changes the key mid-way (GET_AES_KEY). */
export interface TtlockChannelKeys {
  key: Buffer;
  version: TtlockLockVersion;
}

/** One reply as it came: its plaintext read, and the header the lock answered with. */
interface Received {
  reply: TtlockReply;
  version: TtlockLockVersion;
}

/**
 * The command channel of one connection (docs/ttlock.md "Frames"): a request is one frame,
 * encrypted under the lock's key, written in 20-byte chunks to FFF2; the lock's notifications on
 * FFF4 are reassembled by the length byte and decrypted, and a request waits for the reply that
 * echoes its command (the lock may push other frames in between — those are passed by). A reply
 * whose CRC does not match is still read when it decrypts (the vendor's own tools tolerate it),
 * reported once.
 */
export class TtlockChannel {
  private readonly reassembler = new TtlockFrameReassembler();
  private readonly inbox: (Received | { unreadable: string })[] = [];
  private waiter: ((item: Received | { unreadable: string } | 'link_lost') => void) | null = null;
  private lost = false;
  /** The command of the last request: an empty reply (an unpaired lock's INITIALIZATION answer) answers it. */
  private lastRequested = 0;
  /** The header the lock answered with last (pairing learns the lock's group and org from it). */
  lastVersion: TtlockLockVersion | null = null;

  constructor(
    private readonly connection: GattConnection,
    public keys: TtlockChannelKeys,
    private readonly report: { badCrc: () => void } = { badCrc: () => undefined },
  ) {}

  get on(): GattConnection {
    return this.connection;
  }

  /**
   * Sends `command` with `payload` and resolves with the data of the lock's successful reply to it.
   * @throws TtlockExchangeError
   */
  async request(command: number, payload: Buffer, deadline: Deadline): Promise<Buffer> {
    this.inbox.length = 0;
    await this.send(command, payload);
    for (;;) {
      const item = await this.next(deadline);
      if ('unreadable' in item) throw new TtlockExchangeError({ kind: 'unreadable', reason: item.unreadable });
      const { reply } = item;
      if (reply.command !== command) continue;
      if (!reply.ok) throw new TtlockExchangeError({ kind: 'refused', command, code: reply.errorCode });
      return reply.data;
    }
  }

  /** Writes one frame in chunks of {@link TTLOCK_WRITE_CHUNK} bytes. @throws TtlockExchangeError */
  async send(command: number, payload: Buffer): Promise<void> {
    const frame = encodeTtlockFrame(this.keys.version, command, payload, this.keys.key);
    this.lastRequested = command;
    try {
      for (let at = 0; at < frame.length; at += TTLOCK_WRITE_CHUNK) await this.connection.write('write', frame.subarray(at, at + TTLOCK_WRITE_CHUNK));
    } catch (error) {
      throw new TtlockExchangeError(this.lost ? { kind: 'link_lost' } : { kind: 'write_failed', error });
    }
  }

  /** One notification chunk from FFF4. */
  chunk(value: Buffer): void {
    for (const bytes of this.reassembler.push(value)) {
      let frameVersion: TtlockLockVersion;
      let plaintext: Buffer;
      try {
        const frame = parseTtlockFrame(bytes);
        if (!frame.crcOk) this.report.badCrc();
        frameVersion = frame.version;
        plaintext = decryptTtlockFrame(frame, this.keys.key);
      } catch (error) {
        this.enqueue({ unreadable: error instanceof TtlockFrameError || error instanceof TtlockCipherError ? error.message : 'undecodable' });
        continue;
      }
      this.lastVersion = frameVersion;
      // The command a reply answers is its first plaintext byte; an empty plaintext answers whatever was asked.
      this.enqueue({ reply: parseTtlockReply(plaintext, this.lastRequested), version: frameVersion });
    }
  }

  linkLost(): void {
    this.lost = true;
    this.waiter?.('link_lost');
    this.waiter = null;
  }

  private async next(deadline: Deadline): Promise<Received | { unreadable: string }> {
    const queued = this.inbox.shift();
    if (queued !== undefined) return queued;
    if (this.lost) throw new TtlockExchangeError({ kind: 'link_lost' });
    const next = new Promise<Received | { unreadable: string } | 'link_lost'>((resolve) => {
      this.waiter = resolve;
    });
    const result = await deadline.race(next);
    this.waiter = null;
    if (result === EXPIRED) throw new TtlockExchangeError({ kind: 'expired' });
    if (result === 'link_lost') throw new TtlockExchangeError({ kind: 'link_lost' });
    return result;
  }

  private enqueue(item: Received | { unreadable: string }): void {
    const waiter = this.waiter;
    if (waiter !== null) {
      this.waiter = null;
      waiter(item);
      return;
    }
    this.inbox.push(item);
  }
}
