import { isLoopbackAddress, type HostNetwork } from './host-addresses.js';

export interface AllowedHostsOptions {
  /** `api.public_url`: its host is allowed. */
  publicUrl?: string | undefined;
  /** `api.allowed_hosts`: names or addresses; `*.example.org` allows every name under example.org. */
  allowedHosts?: readonly string[] | undefined;
  network: HostNetwork;
  /** Re-reads this host's names and addresses at most this often when a Host is unknown (default 5 s). */
  refreshAfterMs?: number;
  now?: () => number;
}

/**
 * The `Host` part of a request without its port, lower case, IPv6 without brackets or zone, no
 * trailing dot; undefined when it is not a host at all.
 */
export function hostName(hostHeader: string | undefined): string | undefined {
  if (hostHeader === undefined) return undefined;
  let host = hostHeader.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end === -1) return undefined;
    host = host.slice(1, end);
  } else if (host.split(':').length === 2) {
    host = host.slice(0, host.indexOf(':'));
  }
  host = host.replace(/%.*$/, '').replace(/\.$/, '');
  return host === '' || /[\s/\\@]/.test(host) ? undefined : host;
}

/**
 * Which `Host` names the service answers (docs/design.md §9b): `api.public_url`'s, `api.allowed_hosts`,
 * loopback (`localhost` too), and this host's own names (`<hostname>`, `<hostname>.local`) and
 * addresses. Anything else is a name someone else pointed at us — DNS rebinding, or a proxy
 * that is not configured — and is refused with 421 before a page or redirect is built from it.
 */
export class AllowedHosts {
  private readonly configured = new Set<string>();
  private readonly suffixes: string[] = [];
  private own = new Set<string>();
  private readAt = Number.NEGATIVE_INFINITY;
  /**
   * `Host` headers allowed by what never changes while the service runs (loopback, the configured
   * names): nearly every request repeats one of a few, and parsing each cost ~2.6 µs of a command's
   * ~1 ms (docs/performance.md "command-roundtrip-nuki"). This host's own names are read again now and
   * then, so they are not kept here. Bounded: a client sending ever new Hosts only re-parses.
   */
  private readonly staticallyAllowed = new Set<string>();

  constructor(private readonly options: AllowedHostsOptions) {
    if (options.publicUrl !== undefined) {
      const name = hostName(new URL(options.publicUrl).host);
      if (name !== undefined) this.configured.add(name);
    }
    for (const entry of options.allowedHosts ?? []) {
      const lower = entry.trim().toLowerCase();
      if (lower.startsWith('*.')) this.suffixes.push(lower.slice(1));
      else {
        const name = hostName(lower);
        if (name !== undefined) this.configured.add(name);
      }
    }
    this.readOwn();
  }

  /** Whether a request whose `Host` (or trusted `X-Forwarded-Host`) is `hostHeader` may be answered. */
  allows(hostHeader: string | undefined): boolean {
    if (hostHeader !== undefined && this.staticallyAllowed.has(hostHeader)) return true;
    const name = hostName(hostHeader);
    if (name === undefined) return false;
    if (this.isStaticallyKnown(name)) {
      if (hostHeader !== undefined && this.staticallyAllowed.size < 32) this.staticallyAllowed.add(hostHeader);
      return true;
    }
    if (this.own.has(name)) return true;
    // An address may have changed (DHCP) since the names were read: read them again, now and then.
    const now = (this.options.now ?? Date.now)();
    if (now - this.readAt < (this.options.refreshAfterMs ?? 5_000)) return false;
    this.readOwn();
    return this.own.has(name);
  }

  /** Loopback and the configured names: the answer never changes while the service runs. */
  private isStaticallyKnown(name: string): boolean {
    if (name === 'localhost' || name.endsWith('.localhost') || isLoopbackAddress(name)) return true;
    if (this.configured.has(name)) return true;
    return this.suffixes.some((suffix) => name.endsWith(suffix));
  }

  private readOwn(): void {
    this.readAt = (this.options.now ?? Date.now)();
    const own = new Set<string>();
    const hostname = this.options.network.hostname().toLowerCase().replace(/\.$/, '');
    if (hostname !== '') {
      const short = hostname.split('.')[0] ?? hostname;
      for (const name of [hostname, short, `${short}.local`]) own.add(name);
    }
    for (const { address } of this.options.network.addresses()) own.add(address.toLowerCase().replace(/%.*$/, ''));
    this.own = own;
  }
}
