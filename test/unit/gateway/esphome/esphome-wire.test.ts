import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { advertisingDataOf, manufacturerDataOf } from '../../../../src/gateway/transports/esphome/advertising-data.js';
import { decodeNoiseMessage, encodeNoiseFrame, encodeNoiseMessage, encodePlaintextFrame, FrameError, FrameReader } from '../../../../src/gateway/transports/esphome/api-frames.js';
import { addressToNumber, numberToAddress, readConnectionsFree, readRawAdvertisements, readServices, uuidHalves } from '../../../../src/gateway/transports/esphome/esphome-messages.js';
import { NoiseDecryptError, NoiseHandshake } from '../../../../src/gateway/transports/esphome/noise-handshake.js';
import { ProtoFields, ProtoWriter, encodeVarint } from '../../../../src/gateway/transports/esphome/protobuf-fields.js';

/** ESPHome's native API on the wire (docs/gateways.md "How it works"), against bytes written out by hand. */

describe('the protobuf wire format', () => {
  it('writes and reads varints, zigzag and negative int32 as protobuf does', () => {
    expect(encodeVarint(300)).toEqual(Buffer.from([0xac, 0x02]));
    // field 2, sint32 -60 → zigzag 119
    expect(new ProtoWriter().sint(2, -60).finish()).toEqual(Buffer.from([0x10, 0x77]));
    // field 4, int32 -1: ten bytes of two's complement
    expect(new ProtoWriter().int32(4, -1).finish()).toEqual(Buffer.from([0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]));
    const fields = ProtoFields.decode(Buffer.from([0x10, 0x77, 0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]));
    expect([fields.sint(2), fields.int32(4)]).toEqual([-60, -1]);
  });

  it('reads a missing field as its default: BluetoothConnectionsFreeResponse with no free slot has no field 1', () => {
    // limit = 3 only: what ESPHome sends when every slot is taken.
    expect(readConnectionsFree(Buffer.from([0x10, 0x03]))).toEqual({ free: 0, limit: 3 });
    expect(readConnectionsFree(Buffer.from([0x08, 0x02, 0x10, 0x03]))).toEqual({ free: 2, limit: 3 });
  });

  it('reads repeated uint64 packed and unpacked alike, and 128-bit UUIDs from their two halves or a short UUID', () => {
    const uuid = 'c0de0001-7a1e-4c3b-9d2f-0123456789ab';
    const [high, low] = uuidHalves(uuid);
    const packed = new ProtoWriter().uint(1, 0x0a0b0c0d0e0f).message(2, new ProtoWriter().packedUint64(1, [high, low]).uint(2, 1)).finish();
    const unpacked = new ProtoWriter().uint(1, 0x0a0b0c0d0e0f).message(2, new ProtoWriter().uint(1, high).uint(1, low).uint(2, 1)).finish();
    expect(readServices(packed).services[0]?.uuid).toBe(uuid);
    expect(readServices(unpacked).services[0]?.uuid).toBe(uuid);
    const short = new ProtoWriter().uint(1, 1).message(2, new ProtoWriter().uint(2, 1).uint(4, 0x180f)).finish();
    expect(readServices(short).services[0]?.uuid).toBe('0000180f-0000-1000-8000-00805f9b34fb');
  });

  it('rejects a truncated message', () => {
    expect(() => ProtoFields.decode(Buffer.from([0x22, 0x05, 0x01]))).toThrow(RangeError);
  });
});

describe('addresses and advertisements', () => {
  it('turns AA:BB:CC:DD:EE:FF into ESPHome\'s 48-bit number and back', () => {
    expect(addressToNumber('54:D2:72:AB:CD:EF')).toBe(0x54d272abcdef);
    expect(numberToAddress(0x54d272abcdef)).toBe('54:D2:72:AB:CD:EF');
    expect(numberToAddress(0x0000000000ab)).toBe('00:00:00:00:00:AB');
  });

  it('reads manufacturer data out of raw AD structures (company id little-endian), stopping at a malformed one', () => {
    const data = Buffer.from([0x02, 0x01, 0x06, 0x05, 0xff, 0x4c, 0x00, 0x02, 0x15, 0x04, 0xff, 0xff, 0xff, 0x01, 0x09, 0xff]);
    expect(manufacturerDataOf(data)).toEqual(
      new Map([
        [0x004c, Buffer.from([0x02, 0x15])],
        [0xffff, Buffer.from([0x01])],
      ]),
    );
    expect(manufacturerDataOf(advertisingDataOf(new Map([[0x1234, Buffer.from([7, 8, 9])]])))).toEqual(new Map([[0x1234, Buffer.from([7, 8, 9])]]));
  });

  it('reads a batch of raw advertisements with signed RSSI', () => {
    const body = new ProtoWriter()
      .message(1, new ProtoWriter().uint(1, 0x010203040506).sint(2, -71).uint(3, 1).bytes(4, Buffer.from([2, 1, 6])))
      .message(1, new ProtoWriter().uint(1, 0x0a).sint(2, -40))
      .finish();
    expect(readRawAdvertisements(body)).toEqual([
      { address: 0x010203040506, rssi: -71, addressType: 1, data: Buffer.from([2, 1, 6]), manufacturerData: new Map() },
      { address: 0x0a, rssi: -40, addressType: 0, data: Buffer.alloc(0), manufacturerData: new Map() },
    ]);
  });
});

describe('framing', () => {
  it('writes a plaintext frame as 0x00 | varint length | varint type | body, and reads it back across any split', () => {
    const frame = encodePlaintextFrame({ type: 93, body: Buffer.alloc(200, 7) });
    expect(frame.subarray(0, 4)).toEqual(Buffer.from([0x00, 0xc8, 0x01, 0x5d]));
    const reader = new FrameReader('plaintext');
    const got = [...frame].flatMap((byte) => reader.push(Buffer.from([byte])));
    expect(got).toEqual([{ type: 93, body: Buffer.alloc(200, 7) }]);
  });

  it('writes a Noise frame as 0x01 | u16be length | payload, the payload type | length | body', () => {
    expect(encodeNoiseFrame(Buffer.from([9, 9]))).toEqual(Buffer.from([0x01, 0x00, 0x02, 9, 9]));
    const plain = encodeNoiseMessage({ type: 69, body: Buffer.from([1, 2, 3]) });
    expect(plain).toEqual(Buffer.from([0x00, 0x45, 0x00, 0x03, 1, 2, 3]));
    expect(decodeNoiseMessage(plain)).toEqual({ type: 69, body: Buffer.from([1, 2, 3]) });
  });

  it('tells which framing the other side speaks from the first byte', () => {
    expect(() => new FrameReader('plaintext').push(Buffer.from([0x01, 0x00, 0x00]))).toThrow(FrameError);
    try {
      new FrameReader('noise').push(Buffer.from([0x00, 0x00, 0x01]));
    } catch (error) {
      expect((error as FrameError).unexpectedIndicator).toBe(0x00);
    }
  });
});

describe('Noise_NNpsk0_25519_ChaChaPoly_SHA256', () => {
  it('gives both sides the same keys: what one encrypts, the other decrypts, in order', () => {
    const psk = randomBytes(32);
    const initiator = new NoiseHandshake('initiator', psk);
    const responder = new NoiseHandshake('responder', psk);
    const first = initiator.writeMessage();
    expect(first).toHaveLength(32 + 16);
    responder.readMessage(first);
    initiator.readMessage(responder.writeMessage());
    const client = initiator.split();
    const device = responder.split();
    for (const text of ['hello', 'world']) expect(device.receive.decrypt(client.send.encrypt(Buffer.from(text))).toString()).toBe(text);
    expect(client.receive.decrypt(device.send.encrypt(Buffer.from('back'))).toString()).toBe('back');
  });

  it('fails on the responder\'s side with another key: the tag of the first message does not verify', () => {
    const initiator = new NoiseHandshake('initiator', randomBytes(32));
    const responder = new NoiseHandshake('responder', randomBytes(32));
    expect(() => {
      responder.readMessage(initiator.writeMessage());
    }).toThrow(NoiseDecryptError);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new NoiseHandshake('initiator', Buffer.alloc(16))).toThrow(RangeError);
  });
});
