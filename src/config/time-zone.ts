/** The host's IANA time zone: the default zone of a lock (docs/design.md §3 Paths and conventions). */
export function hostTimeZone(): string {
  return process.env.TZ && isValidTimeZone(process.env.TZ) ? process.env.TZ : Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Whether the runtime knows an IANA zone name. */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
