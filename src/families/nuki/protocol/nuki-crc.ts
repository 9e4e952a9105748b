/**
 * CRC-16/CCITT-FALSE, the checksum of every Nuki frame (Nuki Smart Lock API V2.1 §3.4): polynomial
 * 0x1021, initial value 0xFFFF, no reflection, no final XOR. Check value: "123456789" → 0x29B1.
 */
export function crc16CcittFalse(data: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}
