import { describe, expect, it } from '@jest/globals';
import { NukiCommand } from '../../../../src/families/nuki/protocol/nuki-commands.js';
import { encodeEncryptedFrame, encodeUnencryptedFrame } from '../../../../src/families/nuki/protocol/nuki-frame.js';
import { NukiMessageAssembler } from '../../../../src/families/nuki/protocol/nuki-message-assembler.js';

const KEY = Buffer.alloc(32, 0x11);

function encrypted(command: number, payloadLength: number, fill: number): Buffer {
  return encodeEncryptedFrame({ sharedKey: KEY, authorizationId: 2, nonce: Buffer.alloc(24, fill), command, payload: Buffer.alloc(payloadLength, fill) });
}

function fragments(bytes: Buffer, size: number): Buffer[] {
  const parts: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) parts.push(bytes.subarray(offset, offset + size));
  return parts;
}

function pushAll(assembler: NukiMessageAssembler, parts: Buffer[]): Buffer[] {
  return parts.flatMap((part) => assembler.push(part));
}

describe('NukiMessageAssembler, encrypted', () => {
  const keyturnerStates = encrypted(NukiCommand.keyturnerStates, 27, 1);
  const status = encrypted(NukiCommand.status, 1, 2);
  const logEntry = encrypted(NukiCommand.logEntry, 60, 3);
  const stream = Buffer.concat([keyturnerStates, status, logEntry]);

  it.each([1, 20, 185])('rebuilds every frame from %i-byte indications', (size) => {
    const assembler = new NukiMessageAssembler('encrypted');
    expect(pushAll(assembler, fragments(stream, size))).toEqual([keyturnerStates, status, logEntry]);
    expect(assembler.bufferedBytes).toBe(0);
  });

  it('returns nothing until a frame is complete', () => {
    const assembler = new NukiMessageAssembler('encrypted');
    expect(assembler.push(keyturnerStates.subarray(0, 20))).toEqual([]);
    expect(assembler.push(keyturnerStates.subarray(20, 40))).toEqual([]);
    expect(assembler.push(keyturnerStates.subarray(40))).toEqual([keyturnerStates]);
  });

  it('splits one indication that ends one message and starts the next', () => {
    const assembler = new NukiMessageAssembler('encrypted');
    const cut = keyturnerStates.length + 5;
    expect(assembler.push(stream.subarray(0, cut))).toEqual([keyturnerStates]);
    expect(assembler.push(stream.subarray(cut))).toEqual([status, logEntry]);
  });

  it('returns two messages that arrive in one indication', () => {
    const assembler = new NukiMessageAssembler('encrypted');
    expect(assembler.push(Buffer.concat([status, keyturnerStates]))).toEqual([status, keyturnerStates]);
  });

  it('drops and reports a header announcing an implausible length, then carries on', () => {
    const discarded: { bytes: Buffer; reason: string }[] = [];
    const assembler = new NukiMessageAssembler('encrypted', { onDiscard: (bytes, reason) => discarded.push({ bytes, reason }) });
    const garbage = Buffer.alloc(40, 0xff); // length field 0xffff
    expect(assembler.push(garbage)).toEqual([]);
    expect(discarded).toHaveLength(1);
    expect(discarded[0]?.bytes).toEqual(garbage);
    expect(assembler.bufferedBytes).toBe(0);
    expect(assembler.push(status)).toEqual([status]);
    const tooShort = Buffer.alloc(30);
    tooShort.writeUInt16LE(3, 28);
    expect(assembler.push(tooShort)).toEqual([]);
    expect(discarded).toHaveLength(2);
  });

  it('never buffers more than its bound', () => {
    const discarded: Buffer[] = [];
    const assembler = new NukiMessageAssembler('encrypted', { maxBufferedBytes: 100, onDiscard: (bytes) => discarded.push(bytes) });
    expect(assembler.push(logEntry)).toEqual([]); // 30 + 84 + … > 100
    expect(discarded).toHaveLength(1);
    expect(assembler.bufferedBytes).toBe(0);
  });

  it('forgets a partial frame on reset', () => {
    const assembler = new NukiMessageAssembler('encrypted');
    assembler.push(keyturnerStates.subarray(0, 33));
    assembler.reset();
    expect(assembler.bufferedBytes).toBe(0);
    expect(assembler.push(status)).toEqual([status]);
  });
});

describe('NukiMessageAssembler, unencrypted (pairing)', () => {
  const publicKey = encodeUnencryptedFrame(NukiCommand.publicKey, Buffer.alloc(32, 1));
  const challenge = encodeUnencryptedFrame(NukiCommand.challenge, Buffer.alloc(32, 2));
  const authorizationId = encodeUnencryptedFrame(NukiCommand.authorizationId, Buffer.alloc(84, 3));
  const status = encodeUnencryptedFrame(NukiCommand.status, Buffer.from([0]));
  const errorReport = encodeUnencryptedFrame(NukiCommand.errorReport, Buffer.from([0x10, 0x03, 0x00]));
  const stream = Buffer.concat([publicKey, challenge, authorizationId, status, errorReport]);

  it.each([1, 20, 185])('rebuilds every pairing message from %i-byte indications by the known lengths', (size) => {
    const assembler = new NukiMessageAssembler('unencrypted');
    expect(pushAll(assembler, fragments(stream, size))).toEqual([publicKey, challenge, authorizationId, status, errorReport]);
    expect(assembler.bufferedBytes).toBe(0);
  });

  it('returns two messages that arrive in one indication', () => {
    const assembler = new NukiMessageAssembler('unencrypted');
    expect(assembler.push(Buffer.concat([status, challenge.subarray(0, 10)]))).toEqual([status]);
    expect(assembler.push(challenge.subarray(10))).toEqual([challenge]);
  });

  it('takes the whole buffer as one frame for a command id it has no length for (the CRC decides)', () => {
    const assembler = new NukiMessageAssembler('unencrypted');
    const keyturnerStates = encodeUnencryptedFrame(NukiCommand.keyturnerStates, Buffer.alloc(15, 9));
    expect(assembler.push(keyturnerStates)).toEqual([keyturnerStates]);
    expect(assembler.bufferedBytes).toBe(0);
  });
});
