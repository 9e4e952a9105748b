/**
 * `locks[].nuki_users` of one config entry (docs/design.md §4b): the Nuki app authorization's name →
 * the e-mail of the account it belongs to. Either shape counts: a map, or the list the Homebridge
 * UI's form edits (`[{ "authorization", "email" }]`, src/families/nuki/nuki-family.ts).
 */
export function nukiUserLinksOfEntry(entry: Readonly<Record<string, unknown>>): Map<string, string> {
  const links = entry.nuki_users;
  if (Array.isArray(links)) {
    return new Map(
      links.flatMap((link: unknown) => {
        const { authorization, email } = (link ?? {}) as { authorization?: unknown; email?: unknown };
        return typeof authorization === 'string' && typeof email === 'string' ? [[authorization, email] as const] : [];
      }),
    );
  }
  if (typeof links !== 'object' || links === null) return new Map();
  return new Map(Object.entries(links).filter((pair): pair is [string, string] => typeof pair[1] === 'string'));
}
