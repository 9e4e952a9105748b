/**
 * A TTLock names its passcodes by their digits alone (no id, no name). The service's door-code
 * records and the log's keypad entries need a number for a code on the lock: `1` followed by the
 * digits, read as a decimal number — one to one for 4 to 9 digits, a leading `0` kept.
 */
export function keypadCodeIdOf(code: string): number {
  return Number(`1${code}`);
}

/** The digits of a {@link keypadCodeIdOf} id, or null for a number that is not one. */
export function codeOfKeypadCodeId(codeId: number): string | null {
  const text = String(codeId);
  return /^1\d{4,9}$/.test(text) ? text.slice(1) : null;
}
