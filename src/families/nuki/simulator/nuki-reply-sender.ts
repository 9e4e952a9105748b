import nacl from 'tweetnacl';
import { u16, u32 } from '../protocol/nuki-bytes.js';
import { crc16CcittFalse } from '../protocol/nuki-crc.js';
import { NUKI_FRAME_NONCE_LENGTH, encodeEncryptedFrame, encodeUnencryptedFrame } from '../protocol/nuki-frame.js';
import type { NukiIndicationLink } from './nuki-indication-link.js';
import type { SimulatedNukiFaults } from './simulated-nuki-faults.js';

/**
 * Frames the simulated lock's replies and queues them on a link; applies the one-shot `badCrc`
 * fault to whichever reply comes next.
 */
export class NukiReplySender {
  constructor(
    private readonly faults: SimulatedNukiFaults,
    /** 32 fresh bytes; an encrypted frame uses the first 24 as its nonce. */
    private readonly nonce: () => Buffer,
  ) {}

  /** `command | payload | CRC` (§3.3). */
  unencrypted(link: NukiIndicationLink, characteristicUuid: string, command: number, payload: Buffer): void {
    const frame = encodeUnencryptedFrame(command, payload);
    if (this.takeBadCrc()) frame.writeUInt16LE(frame.readUInt16LE(frame.length - 2) ^ 0xffff, frame.length - 2);
    link.indicate(characteristicUuid, frame);
  }

  /** Encrypted under the authorization's shared key (§3.2). */
  encrypted(link: NukiIndicationLink, characteristicUuid: string, sharedKey: Buffer, authorizationId: number, command: number, payload: Buffer): void {
    const nonce = Buffer.from(this.nonce().subarray(0, NUKI_FRAME_NONCE_LENGTH));
    const frame = this.takeBadCrc()
      ? encryptWithWrongCrc(sharedKey, authorizationId, nonce, command, payload)
      : encodeEncryptedFrame({ sharedKey, authorizationId, nonce, command, payload });
    link.indicate(characteristicUuid, frame);
  }

  private takeBadCrc(): boolean {
    if (!this.faults.badCrc) return false;
    this.faults.badCrc = false;
    return true;
  }
}

/**
 * The encrypted format with a CRC that does not match, which encodeEncryptedFrame rightly cannot
 * produce: the MAC is valid (the client can open the box), the CRC inside is not.
 */
function encryptWithWrongCrc(sharedKey: Buffer, authorizationId: number, nonce: Buffer, command: number, payload: Buffer): Buffer {
  const body = Buffer.concat([u32(authorizationId), u16(command), payload]);
  const ciphertext = Buffer.from(nacl.secretbox(Buffer.concat([body, u16(crc16CcittFalse(body) ^ 0xffff)]), nonce, sharedKey));
  return Buffer.concat([nonce, u32(authorizationId), u16(ciphertext.length), ciphertext]);
}
