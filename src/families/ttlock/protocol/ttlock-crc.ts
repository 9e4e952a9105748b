/**
 * TTLock's frame check (docs/ttlock.md "Frames"): CRC-8/MAXIM (Dallas 1-Wire: polynomial 0x31
 * reflected to 0x8C, initial value 0, no final XOR), driven from a 256-entry table in which the
 * vendor's firmware has one altered entry: index 0x21 holds 0x07 instead of 0x7D. Real locks reject
 * a frame whose CRC walk passes index 0x21 unless the quirk is reproduced; frames that never reach
 * it agree under both tables. The altered entry is documented by ttlock-rs (MIT, `crc.rs`) and
 * ttlock-ble (MIT, `crypto.py`); the table below is computed, not copied.
 */

/** The standard reflected CRC-8/MAXIM table. */
function standardTable(): number[] {
  const table: number[] = [];
  for (let index = 0; index < 256; index += 1) {
    let crc = index;
    for (let bit = 0; bit < 8; bit += 1) crc = (crc & 1) !== 0 ? (crc >>> 1) ^ 0x8c : crc >>> 1;
    table.push(crc);
  }
  return table;
}

/** The index the vendor's table alters, and the value it holds there (the standard value is 0x7D). */
export const TTLOCK_CRC_QUIRK = { index: 0x21, value: 0x07 } as const;

const STANDARD = standardTable();
const VENDOR = STANDARD.map((value, index) => (index === TTLOCK_CRC_QUIRK.index ? TTLOCK_CRC_QUIRK.value : value));

/** One entry of the vendor table (the app's credential obfuscation uses it too: ttlock-lock-data.ts). */
export function ttlockCrcTableValue(index: number): number {
  return VENDOR[index & 0xff] ?? 0;
}

/** TTLock's CRC-8 over `bytes` (the vendor table, quirk included). */
export function ttlockCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = VENDOR[crc ^ byte] ?? 0;
  return crc;
}

/** The same walk over the standard table: what tools that miss the quirk compute (kept for the tests and the dissector's hint). */
export function standardMaximCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = STANDARD[crc ^ byte] ?? 0;
  return crc;
}
