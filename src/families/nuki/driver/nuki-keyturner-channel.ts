import { EXPIRED, type Deadline } from '../../../gateway/deadline.js';
import type { GattConnection } from '../../../gateway/gatt-transport.js';
import { NukiCommand } from '../protocol/nuki-commands.js';
import { randomNukiNonce } from '../protocol/nuki-crypto.js';
import { NukiFrameError, decodeEncryptedFrame, decodeUnencryptedFrame, encodeEncryptedFrame } from '../protocol/nuki-frame.js';
import { NukiMessageAssembler } from '../protocol/nuki-message-assembler.js';

/** One decrypted message from the lock. */
export interface NukiMessage {
  command: number;
  payload: Buffer;
}

/** What waiting for the next message can end with besides a message. */
export type NukiReceiveFailure = 'expired' | 'link_lost' | NukiUnreadableFrame;

/** A frame from the lock that could not be read (bad CRC, MAC, length, foreign authorization). */
export interface NukiUnreadableFrame {
  unreadable: string;
}

/** The credentials the keyturner channel encrypts with. */
export interface NukiChannelKeys {
  sharedKey: Buffer;
  authorizationId: number;
}

/** Length of an unencrypted Error Report (command, code, command id, CRC). */
const UNENCRYPTED_ERROR_REPORT_LENGTH = 2 + 1 + 2 + 2;

/**
 * The encrypted keyturner channel of one connection (USDIO, write + indicate): every message out
 * is a secretbox under the shared key with a fresh random 24-byte nonce; indications are
 * reassembled into frames, authenticated, checked (CRC, our authorization id) and queued for
 * the exchange that waits. Messages nobody waits for stay queued until the next exchange clears
 * them. A frame that cannot be read takes its place in the queue as {@link NukiUnreadableFrame}:
 * the exchange that waited for it learns at once that its answer is lost (a protocol error,
 * docs/design.md §4b) instead of waiting out its deadline, and a log read never reads on past a hole.
 * The lock answers an unknown authorization with an unencrypted Error Report (spec §3.2): that is
 * recognised too.
 */
export class NukiKeyturnerChannel {
  private readonly assembler: NukiMessageAssembler;
  private readonly inbox: (NukiMessage | NukiUnreadableFrame)[] = [];
  private waiter: ((message: NukiMessage | NukiUnreadableFrame | 'link_lost') => void) | null = null;
  private lost = false;

  constructor(
    private readonly connection: GattConnection,
    private readonly keys: NukiChannelKeys,
    private readonly report: { dropped: (reason: string) => void; received: (message: NukiMessage) => void },
  ) {
    this.assembler = new NukiMessageAssembler('encrypted', {
      onDiscard: (_bytes, reason) => {
        this.unreadable(reason);
      },
    });
  }

  /** The connection this channel runs on. */
  get on(): GattConnection {
    return this.connection;
  }

  /** Sends one encrypted message (a write with response). @throws TransportError */
  async send(command: number, payload: Buffer): Promise<void> {
    const frame = encodeEncryptedFrame({ sharedKey: this.keys.sharedKey, authorizationId: this.keys.authorizationId, nonce: randomNukiNonce(24), command, payload });
    await this.connection.write('usdio', frame);
  }

  /** Forgets messages that arrived before the exchange about to start. */
  clear(): void {
    this.inbox.length = 0;
  }

  /** The next message, or why none came. */
  async receive(deadline: Deadline): Promise<NukiMessage | NukiReceiveFailure> {
    const queued = this.inbox.shift();
    if (queued !== undefined) return queued;
    if (this.lost) return 'link_lost';
    const next = new Promise<NukiMessage | NukiUnreadableFrame | 'link_lost'>((resolve) => {
      this.waiter = resolve;
    });
    const result = await deadline.race(next);
    this.waiter = null;
    return result === EXPIRED ? 'expired' : result;
  }

  /** One indication of the USDIO. */
  indication(value: Buffer): void {
    // A new frame starts at an indication boundary; a 7-byte plain error is never a fragment's middle.
    if (this.assembler.bufferedBytes === 0 && value.length === UNENCRYPTED_ERROR_REPORT_LENGTH) {
      const plain = tryUnencrypted(value);
      if (plain !== null) {
        this.deliver(plain);
        return;
      }
    }
    for (const frame of this.assembler.push(value)) {
      let decoded;
      try {
        decoded = decodeEncryptedFrame(frame, this.keys.sharedKey);
      } catch (error) {
        this.unreadable(error instanceof NukiFrameError ? error.reason : 'undecodable');
        continue;
      }
      if (!decoded.crcOk) {
        this.unreadable('bad_crc');
        continue;
      }
      if (decoded.authorizationId !== this.keys.authorizationId) {
        this.unreadable('foreign authorization id');
        continue;
      }
      this.deliver({ command: decoded.command, payload: decoded.payload });
    }
  }

  /** The link dropped: the waiting exchange ends now. */
  linkLost(): void {
    this.lost = true;
    this.waiter?.('link_lost');
    this.waiter = null;
  }

  private unreadable(reason: string): void {
    this.report.dropped(reason);
    this.enqueue({ unreadable: reason });
  }

  private deliver(message: NukiMessage): void {
    this.report.received(message);
    this.enqueue(message);
  }

  private enqueue(message: NukiMessage | NukiUnreadableFrame): void {
    const waiter = this.waiter;
    if (waiter !== null) {
      this.waiter = null;
      waiter(message);
      return;
    }
    this.inbox.push(message);
  }
}

/** An unencrypted Error Report with a good CRC, else null. */
function tryUnencrypted(value: Buffer): NukiMessage | null {
  try {
    const frame = decodeUnencryptedFrame(value);
    return frame.crcOk && frame.command === NukiCommand.errorReport ? { command: frame.command, payload: frame.payload } : null;
  } catch {
    return null;
  }
}
