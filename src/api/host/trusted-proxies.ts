/**
 * `api.trusted_proxies` (docs/remote-access.md): whose `X-Forwarded-*` headers the service
 * believes. Fastify (through proxy-addr) takes a request's address as the rightmost
 * `X-Forwarded-For` entry that is not a trusted proxy, so a client behind the proxy cannot choose
 * its address by sending its own header. That holds only while every trusted entry is a proxy: a
 * range such as a home network's `192.168.1.0/24` makes every device in it a "proxy" whose claims
 * are believed — any of them may then pose as any address, and escape every per-address limit
 * (issue #32, finding 9). Ranges are still accepted (a proxy may move within one), but each is
 * named in a warning at start.
 */
import { isIP } from 'node:net';

/** Whether every address of `entry` is a loopback address (a proxy on this host). */
function onlyLoopback(address: string, prefix: number): boolean {
  if (isIP(address) === 4) return address.startsWith('127.') && prefix >= 8;
  return (address === '::1' || address === '0:0:0:0:0:0:0:1') && prefix === 128;
}

/** The entries of `api.trusted_proxies` that stand for more than one address off this host. */
export function trustedProxyRanges(entries: readonly string[]): string[] {
  return entries.filter((entry) => {
    const [address = '', prefixText] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || prefixText === undefined) return false;
    const prefix = Number(prefixText);
    const full = family === 4 ? 32 : 128;
    return prefix < full && !onlyLoopback(address, prefix);
  });
}

/** The warning for {@link trustedProxyRanges}, or undefined when every entry is one address. */
export function trustedProxyRangeWarning(entries: readonly string[]): string | undefined {
  const ranges = trustedProxyRanges(entries);
  if (ranges.length === 0) return undefined;
  return (
    `api.trusted_proxies names ${ranges.length === 1 ? 'a range' : 'ranges'} (${ranges.join(', ')}): every device there is believed when it ` +
    "claims another client's address in X-Forwarded-For, and can escape the per-address limits. Name your reverse proxy's own address instead (docs/remote-access.md)."
  );
}
