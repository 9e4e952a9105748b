/**
 * Manufacturer-specific data (AD type 0xFF) out of raw advertising data: a sequence of AD
 * structures `length | type | data` (Bluetooth Core Supplement, Part A §1.4), as an ESPHome proxy
 * relays them in BluetoothLERawAdvertisementsResponse. Each value holds the bytes after the
 * little-endian company identifier, as BlueZ hands them (src/gateway/gatt-transport.ts).
 * Malformed structures end the parse; what came before them is kept.
 */
export function manufacturerDataOf(data: Buffer): Map<number, Buffer> {
  const manufacturerData = new Map<number, Buffer>();
  let offset = 0;
  while (offset < data.length) {
    const length = data[offset] ?? 0;
    if (length === 0 || offset + 1 + length > data.length) break;
    const type = data[offset + 1];
    if (type === 0xff && length >= 3) {
      const company = data.readUInt16LE(offset + 2);
      // A scan response may repeat a company's data; BlueZ keeps the latest, so do we.
      manufacturerData.set(company, Buffer.from(data.subarray(offset + 4, offset + 1 + length)));
    }
    offset += 1 + length;
  }
  return manufacturerData;
}

/** Manufacturer data as AD structures (the fake proxy and tests build advertisements with it). */
export function advertisingDataOf(manufacturerData: ReadonlyMap<number, Buffer>): Buffer {
  const structures: Buffer[] = [Buffer.from([0x02, 0x01, 0x06])]; // Flags: LE General Discoverable, BR/EDR not supported
  for (const [company, bytes] of manufacturerData) {
    const structure = Buffer.alloc(4 + bytes.length);
    structure[0] = 3 + bytes.length;
    structure[1] = 0xff;
    structure.writeUInt16LE(company, 2);
    bytes.copy(structure, 4);
    structures.push(structure);
  }
  return Buffer.concat(structures);
}
