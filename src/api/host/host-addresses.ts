import { hostname as osHostname, networkInterfaces as osNetworkInterfaces, type NetworkInterfaceInfo } from 'node:os';

/** One address of this host, as `os.networkInterfaces()` reports it. */
export interface HostAddress {
  interfaceName: string;
  address: string;
  family: 'IPv4' | 'IPv6';
  internal: boolean;
}

/** Where this host's name and addresses come from; tests pass fixed ones. */
export interface HostNetwork {
  hostname(): string;
  addresses(): HostAddress[];
}

/** The running host, read afresh on every call (DHCP may change an address while the service runs). */
export const systemHostNetwork: HostNetwork = {
  hostname: () => osHostname(),
  addresses: () =>
    Object.entries(osNetworkInterfaces()).flatMap(([interfaceName, infos]) =>
      (infos ?? []).map((info: NetworkInterfaceInfo) => ({
        interfaceName,
        address: info.address,
        family: info.family,
        internal: info.internal,
      })),
    ),
};

/** Whether `address` (an IP literal, no brackets) is loopback: 127.0.0.0/8, ::1, or IPv4-mapped loopback. */
export function isLoopbackAddress(address: string): boolean {
  const lower = address.toLowerCase();
  return lower === '::1' || /^127\./.test(lower) || /^::ffff:127\./.test(lower);
}

/** Whether `address` is link-local (169.254.0.0/16, fe80::/10): not reachable across a router, unstable. */
export function isLinkLocalAddress(address: string): boolean {
  return /^169\.254\./.test(address) || /^fe[89ab][0-9a-f]:/i.test(address);
}

/** Whether `host` names every interface (`0.0.0.0`, `::`, or empty). */
export function isWildcardHost(host: string): boolean {
  return host === '' || host === '0.0.0.0' || host === '::' || host === '[::]';
}

/**
 * Interfaces of containers and virtual machines this host runs: their addresses face the guests,
 * not the home network, so they are never offered to people.
 */
const VIRTUAL_INTERFACE = /^(docker|br-|virbr|vmnet|vboxnet|cni|flannel|podman|lxcbr|lxdbr)/;

/** The private IPv4 ranges of a home network (RFC 1918), preferred over any other address. */
function isPrivateIPv4(address: string): boolean {
  return /^10\./.test(address) || /^192\.168\./.test(address) || /^172\.(1[6-9]|2\d|3[01])\./.test(address);
}

/**
 * The addresses of this host that another device can reach, best first: private IPv4 (the home
 * network), other IPv4, then IPv6 — never loopback, link-local, or a container bridge's.
 */
export function reachableAddresses(network: HostNetwork): HostAddress[] {
  const candidates = network
    .addresses()
    .filter((a) => !a.internal && !isLoopbackAddress(a.address) && !isLinkLocalAddress(a.address) && !VIRTUAL_INTERFACE.test(a.interfaceName));
  const rank = (a: HostAddress): number => (a.family === 'IPv4' ? (isPrivateIPv4(a.address) ? 0 : 1) : 2);
  return candidates.map((a, index) => ({ a, index })).sort((x, y) => rank(x.a) - rank(y.a) || x.index - y.index).map(({ a }) => a);
}

/** `host` as it goes in a URL: IPv6 literals in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
