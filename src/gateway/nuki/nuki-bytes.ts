/** Little-endian field writers shared by the Nuki frame and message codecs (the spec's byte order). */

export function u8(value: number): Buffer {
  const bytes = Buffer.alloc(1);
  bytes.writeUInt8(value, 0);
  return bytes;
}

export function i8(value: number): Buffer {
  const bytes = Buffer.alloc(1);
  bytes.writeInt8(value, 0);
  return bytes;
}

export function u16(value: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16LE(value, 0);
  return bytes;
}

export function i16(value: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeInt16LE(value, 0);
  return bytes;
}

export function u32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value, 0);
  return bytes;
}

export function f32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeFloatLE(value, 0);
  return bytes;
}
