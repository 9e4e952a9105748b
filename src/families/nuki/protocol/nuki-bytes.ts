/** Little-endian field writers shared by the Nuki frame and message codecs (the spec's byte order). */

/** A writer of one fixed-size field: a fresh buffer of `size` bytes holding `value`. */
function fieldWriter(size: number, write: (bytes: Buffer, value: number) => void): (value: number) => Buffer {
  return (value) => {
    const bytes = Buffer.alloc(size);
    write(bytes, value);
    return bytes;
  };
}

export const u8 = fieldWriter(1, (bytes, value) => bytes.writeUInt8(value, 0));
export const i8 = fieldWriter(1, (bytes, value) => bytes.writeInt8(value, 0));
export const u16 = fieldWriter(2, (bytes, value) => bytes.writeUInt16LE(value, 0));
export const i16 = fieldWriter(2, (bytes, value) => bytes.writeInt16LE(value, 0));
export const u32 = fieldWriter(4, (bytes, value) => bytes.writeUInt32LE(value, 0));
export const f32 = fieldWriter(4, (bytes, value) => bytes.writeFloatLE(value, 0));
