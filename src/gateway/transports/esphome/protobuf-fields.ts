/**
 * The protocol buffers wire format, as much of it as ESPHome's native API needs (api.proto is
 * proto3): varints, zigzag integers, length-delimited fields, packed and unpacked repeated scalars.
 * Proto3 leaves out every field that holds its default (0, false, empty), so a reader must take a
 * missing field as that default: ESPHome's `BluetoothConnectionsFreeResponse` with no free slot
 * arrives without its `free` field (docs/gateways.md "How it works").
 */

/** One decoded message: the raw values of each field number, in the order they came. */
export class ProtoFields {
  private readonly values = new Map<number, (bigint | Buffer)[]>();

  /** Reads a message; throws a RangeError on a truncated or malformed one. */
  static decode(bytes: Buffer): ProtoFields {
    const fields = new ProtoFields();
    let offset = 0;
    while (offset < bytes.length) {
      const [key, afterKey] = readVarint(bytes, offset);
      offset = afterKey;
      const number = Number(key >> 3n);
      const wireType = Number(key & 7n);
      switch (wireType) {
        case 0: {
          const [value, next] = readVarint(bytes, offset);
          fields.add(number, value);
          offset = next;
          break;
        }
        case 1:
          if (offset + 8 > bytes.length) throw new RangeError('truncated fixed64 field');
          fields.add(number, bytes.readBigUInt64LE(offset));
          offset += 8;
          break;
        case 2: {
          const [length, next] = readVarint(bytes, offset);
          const end = next + Number(length);
          if (end > bytes.length) throw new RangeError('truncated length-delimited field');
          fields.add(number, bytes.subarray(next, end));
          offset = end;
          break;
        }
        case 5:
          if (offset + 4 > bytes.length) throw new RangeError('truncated fixed32 field');
          fields.add(number, BigInt(bytes.readUInt32LE(offset)));
          offset += 4;
          break;
        default:
          throw new RangeError(`unsupported wire type ${wireType}`);
      }
    }
    return fields;
  }

  private add(number: number, value: bigint | Buffer): void {
    const list = this.values.get(number);
    if (list === undefined) this.values.set(number, [value]);
    else list.push(value);
  }

  private last(number: number): bigint | Buffer | undefined {
    const list = this.values.get(number);
    return list?.[list.length - 1];
  }

  /** An unsigned integer field (uint32, uint64 below 2^53, enum); 0 when absent. */
  uint(number: number): number {
    const value = this.last(number);
    return typeof value === 'bigint' ? Number(value) : 0;
  }

  /** A uint64 field as a bigint; 0n when absent. */
  uint64(number: number): bigint {
    const value = this.last(number);
    return typeof value === 'bigint' ? value : 0n;
  }

  /** An int32 field (negative values come as ten-byte varints); 0 when absent. */
  int32(number: number): number {
    return Number(BigInt.asIntN(32, this.uint64(number)));
  }

  /** A sint32 field (zigzag); 0 when absent. */
  sint(number: number): number {
    const value = this.uint64(number);
    return Number((value >> 1n) ^ -(value & 1n));
  }

  /** A bool field; false when absent. */
  bool(number: number): boolean {
    return this.uint64(number) !== 0n;
  }

  /** Whether the field came at all (proto3 leaves defaults out). */
  has(number: number): boolean {
    return this.values.has(number);
  }

  /** A bytes field; empty when absent. */
  bytes(number: number): Buffer {
    const value = this.last(number);
    return Buffer.isBuffer(value) ? value : Buffer.alloc(0);
  }

  /** A string field; empty when absent. */
  string(number: number): string {
    return this.bytes(number).toString('utf8');
  }

  /** Every occurrence of an embedded-message field, decoded. */
  messages(number: number): ProtoFields[] {
    return (this.values.get(number) ?? []).filter((value): value is Buffer => Buffer.isBuffer(value)).map((value) => ProtoFields.decode(value));
  }

  /** Every occurrence of a length-delimited field (repeated string or bytes). */
  allBytes(number: number): Buffer[] {
    return (this.values.get(number) ?? []).filter((value): value is Buffer => Buffer.isBuffer(value));
  }

  /** A repeated varint field, packed or not (proto3 packs by default; a reader takes both). */
  repeatedUint64(number: number): bigint[] {
    const out: bigint[] = [];
    for (const value of this.values.get(number) ?? []) {
      if (typeof value === 'bigint') {
        out.push(value);
        continue;
      }
      let offset = 0;
      while (offset < value.length) {
        const [item, next] = readVarint(value, offset);
        out.push(item);
        offset = next;
      }
    }
    return out;
  }
}

/** Builds one message; fields holding their default are left out, as proto3 writers do. */
export class ProtoWriter {
  private readonly parts: Buffer[] = [];

  /** An unsigned varint field (uint32, uint64, enum, bool as 0/1). */
  uint(number: number, value: number | bigint): this {
    const big = BigInt(value);
    if (big === 0n) return this;
    this.parts.push(encodeVarint(BigInt(number) << 3n), encodeVarint(BigInt.asUintN(64, big)));
    return this;
  }

  /** An int32 field: negative values as ten-byte two's complement varints. */
  int32(number: number, value: number): this {
    return this.uint(number, BigInt.asUintN(64, BigInt(value)));
  }

  /** A sint32 field (zigzag). */
  sint(number: number, value: number): this {
    return this.uint(number, (value << 1) ^ (value >> 31));
  }

  bool(number: number, value: boolean): this {
    return this.uint(number, value ? 1 : 0);
  }

  /** A length-delimited field (bytes, string, embedded message); left out when empty unless `always`. */
  bytes(number: number, value: Buffer | string, always = false): this {
    const buffer = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    if (buffer.length === 0 && !always) return this;
    this.parts.push(encodeVarint((BigInt(number) << 3n) | 2n), encodeVarint(BigInt(buffer.length)), buffer);
    return this;
  }

  /** An embedded message (written even when empty: an empty element of a repeated field still counts). */
  message(number: number, message: ProtoWriter): this {
    return this.bytes(number, message.finish(), true);
  }

  /**
   * A repeated varint field, one key per element (unpacked, zeros included): how ESPHome's own
   * encoder writes `repeated uint64` (a UUID's halves, the allocated addresses).
   */
  repeatedUint64(number: number, values: readonly bigint[]): this {
    for (const value of values) this.parts.push(encodeVarint(BigInt(number) << 3n), encodeVarint(BigInt.asUintN(64, value)));
    return this;
  }

  /** A packed repeated varint field. */
  packedUint64(number: number, values: readonly bigint[]): this {
    if (values.length === 0) return this;
    return this.bytes(number, Buffer.concat(values.map((value) => encodeVarint(BigInt.asUintN(64, value)))));
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** A varint as bytes. */
export function encodeVarint(value: bigint | number): Buffer {
  let rest = BigInt(value);
  if (rest < 0n) throw new RangeError('a varint cannot be negative');
  const bytes: number[] = [];
  do {
    let byte = Number(rest & 0x7fn);
    rest >>= 7n;
    if (rest !== 0n) byte |= 0x80;
    bytes.push(byte);
  } while (rest !== 0n);
  return Buffer.from(bytes);
}

/** Reads a varint at `offset`: its value and the offset after it. Throws a RangeError when it runs past the end. */
export function readVarint(bytes: Buffer, offset: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  for (let position = offset; position < bytes.length; position += 1) {
    const byte = bytes[position] ?? 0;
    value |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, position + 1];
    shift += 7n;
    if (shift > 63n) throw new RangeError('varint too long');
  }
  throw new RangeError('truncated varint');
}
