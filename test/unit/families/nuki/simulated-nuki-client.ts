/**
 * A minimal Nuki central for the SimulatedNuki tests: writes whole frames through a link, as a
 * BLE long write delivers them, and reassembles indications with the codec's assembler.
 */
import { NukiCommand, NukiLockState, NukiStatusCode, nukiCommandName, nukiConstantName, nukiErrorName } from '../../../../src/families/nuki/protocol/nuki-commands.js';
import { randomNukiNonce } from '../../../../src/families/nuki/protocol/nuki-crypto.js';
import { decodeEncryptedFrame, encodeEncryptedFrame } from '../../../../src/families/nuki/protocol/nuki-frame.js';
import { NukiMessageAssembler } from '../../../../src/families/nuki/protocol/nuki-message-assembler.js';
import {
  decodeChallenge,
  decodeErrorReport,
  decodeKeyturnerStates,
  decodeLogEntry,
  decodeLogEntryCount,
  decodeStatus,
  encodeLockAction,
  encodeRequestData,
  encodeRequestLogEntries,
  type NukiKeyturnerStates,
  type NukiRequestLogEntries,
} from '../../../../src/families/nuki/protocol/nuki-messages.js';
import type { NukiPairingChannel } from '../../../../src/families/nuki/protocol/nuki-pairing.js';
import { NukiUuids } from '../../../../src/families/nuki/protocol/nuki-uuids.js';
import type { SimulatedLockLink } from '../../../../src/gateway/transports/simulator/simulated-device.js';
import type { SimulatedNuki } from '../../../../src/families/nuki/simulator/simulated-nuki.js';

/** One reassembled, decrypted message from the lock. */
export interface ReceivedMessage {
  command: number;
  payload: Buffer;
  crcOk: boolean;
}

/** A message in words, so a test reads like the spec's §9 transcripts. */
export function describeMessage(message: ReceivedMessage): string {
  switch (message.command) {
    case NukiCommand.status: {
      const { status } = decodeStatus(message.payload);
      return `Status ${status === NukiStatusCode.COMPLETE ? 'COMPLETE' : status === NukiStatusCode.ACCEPTED ? 'ACCEPTED' : String(status)}`;
    }
    case NukiCommand.keyturnerStates:
      return `Keyturner States ${nukiConstantName(NukiLockState, decodeKeyturnerStates(message.payload).lockState) ?? 'unknown'}`;
    case NukiCommand.errorReport:
      return `Error Report ${nukiErrorName(decodeErrorReport(message.payload).errorCode)}`;
    case NukiCommand.logEntryCount:
      return `Log Entry Count ${decodeLogEntryCount(message.payload).count}`;
    case NukiCommand.logEntry:
      return `Log Entry ${decodeLogEntry(message.payload).index}`;
    default:
      return nukiCommandName(message.command);
  }
}

/** A paired central on the USDIO. */
export class NukiTestClient {
  readonly link: SimulatedLockLink;
  /** Every USDIO indication as it arrived (fragments). */
  readonly indications: Buffer[] = [];
  readonly messages: ReceivedMessage[] = [];
  lost = false;
  private readonly assembler = new NukiMessageAssembler('encrypted');

  constructor(
    private readonly nuki: SimulatedNuki,
    readonly authorizationId: number,
    readonly sharedKey: Buffer,
  ) {
    this.link = nuki.openLink();
    this.link.onNotification((uuid, value) => {
      if (uuid !== NukiUuids.keyturnerUsdio) return;
      this.indications.push(value);
      for (const frame of this.assembler.push(value)) this.messages.push(decodeEncryptedFrame(frame, this.sharedKey));
    });
    this.link.onLost(() => {
      this.lost = true;
    });
  }

  /** Writes one encrypted command. */
  send(command: number, payload: Buffer): void {
    this.link.write(
      NukiUuids.keyturnerUsdio,
      encodeEncryptedFrame({ sharedKey: this.sharedKey, authorizationId: this.authorizationId, nonce: randomNukiNonce(24), command, payload }),
    );
  }

  /** Sends a command and returns every message the lock sent until it settled. */
  async exchange(command: number, payload: Buffer): Promise<ReceivedMessage[]> {
    const before = this.messages.length;
    this.send(command, payload);
    await this.nuki.settled();
    return this.messages.slice(before);
  }

  async requestData(command: number): Promise<ReceivedMessage[]> {
    return this.exchange(NukiCommand.requestData, encodeRequestData({ command, additionalData: Buffer.alloc(0) }));
  }

  /** Request Data(Challenge) → the nonce. */
  async challenge(): Promise<Buffer> {
    const [reply] = await this.requestData(NukiCommand.challenge);
    if (reply?.command !== NukiCommand.challenge) throw new Error(`expected a Challenge, got ${reply === undefined ? 'nothing' : describeMessage(reply)}`);
    return decodeChallenge(reply.payload).nonce;
  }

  async states(): Promise<NukiKeyturnerStates> {
    const [reply] = await this.requestData(NukiCommand.keyturnerStates);
    if (reply?.command !== NukiCommand.keyturnerStates) throw new Error('expected Keyturner States');
    return decodeKeyturnerStates(reply.payload);
  }

  /** A fresh challenge, then a Lock Action with it. */
  async lockAction(action: number, nameSuffix: string | null = null): Promise<ReceivedMessage[]> {
    const nonce = await this.challenge();
    return this.exchange(NukiCommand.lockAction, encodeLockAction({ action, appId: 7, flags: 0, nameSuffix, nonce }));
  }

  /** A fresh challenge, then Request Log Entries with it. */
  async readLog(request: Omit<NukiRequestLogEntries, 'nonce'>): Promise<ReceivedMessage[]> {
    const nonce = await this.challenge();
    return this.exchange(NukiCommand.requestLogEntries, encodeRequestLogEntries({ ...request, nonce }));
  }
}

/**
 * The pairing GDIO as `pairNukiLock` wants it, over a link. `tamper` may rewrite a frame before
 * it is written (to forge a bad authenticator).
 */
export function pairingChannel(link: SimulatedLockLink, tamper: (frame: Buffer) => Buffer = (frame) => frame): NukiPairingChannel {
  const assembler = new NukiMessageAssembler('unencrypted');
  const frames: Buffer[] = [];
  const waiters: ((frame: Buffer) => void)[] = [];
  link.onNotification((uuid, value) => {
    if (uuid !== NukiUuids.pairingGdio) return;
    for (const frame of assembler.push(value)) {
      const waiter = waiters.shift();
      if (waiter === undefined) frames.push(frame);
      else waiter(frame);
    }
  });
  return {
    send: (frame) => {
      link.write(NukiUuids.pairingGdio, tamper(frame));
      return Promise.resolve();
    },
    receive: (timeoutMs) =>
      new Promise((resolve, reject) => {
        const queued = frames.shift();
        if (queued !== undefined) {
          resolve(queued);
          return;
        }
        const waiter = (frame: Buffer): void => {
          clearTimeout(timer);
          resolve(frame);
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no frame within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      }),
  };
}
