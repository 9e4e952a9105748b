import { isLoopbackAddress, isWildcardHost, reachableAddresses, urlHost, type HostNetwork } from './host-addresses.js';

/** Where the service can be reached, for what it prints, mails and redirects to (docs/design.md §7). */
export interface ServiceUrls {
  /** For people: `api.public_url`, else an address of this host other devices reach, else loopback. */
  base: string;
  /** On this machine (loopback when listening on every interface): the settings page's server uses it. */
  local: string;
  /** One actionable log line when `base` opens on this machine only; absent when it reaches further. */
  problem?: string;
}

export interface ServiceUrlsInput {
  /** `api.public_url`, when set. */
  publicUrl: string | undefined;
  /** The address the server listens on (`api.host`). */
  host: string;
  port: number;
  network: HostNetwork;
  /**
   * Listening on loopback on purpose (the demo's default): loopback links are then what is meant,
   * and not worth a warning.
   */
  loopbackIntended?: boolean;
}

const SET_PUBLIC_URL = 'set api.public_url to the address people use (e.g. http://homebridge.local:8787, or your proxy\'s https URL)';

/**
 * The rule of docs/design.md §7: `api.public_url` when set; otherwise, when listening on every
 * interface, an address of this host that other devices can reach (never loopback or link-local);
 * a loopback URL only beside it, or alone with one line that says what to do.
 */
export function serviceUrls(input: ServiceUrlsInput): ServiceUrls {
  const { host, port, network } = input;
  const wildcard = isWildcardHost(host);
  const local = `http://${wildcard ? '127.0.0.1' : urlHost(host)}:${port}`;
  if (input.publicUrl !== undefined && input.publicUrl.trim() !== '') {
    return { base: input.publicUrl.trim().replace(/\/+$/, ''), local };
  }
  if (wildcard) {
    const [best] = reachableAddresses(network);
    if (best !== undefined) return { base: `http://${urlHost(best.address)}:${port}`, local };
    return {
      base: local,
      local,
      problem:
        `No address of this host that other devices can reach was found (only loopback): links the service prints or mails ` +
        `(invitations, the web app) open on this machine only. Connect the host to the network, or ${SET_PUBLIC_URL}.`,
    };
  }
  const loopback = isLoopbackAddress(host.replace(/^\[|\]$/g, '')) || host.toLowerCase() === 'localhost';
  if (loopback && input.loopbackIntended !== true) {
    return {
      base: local,
      local,
      problem:
        `The service listens on ${host} only (api.host): links it prints or mails (invitations, the web app) open on this ` +
        `machine only. Set api.host to 0.0.0.0 to serve the home network, or behind a proxy ${SET_PUBLIC_URL}.`,
    };
  }
  return { base: local, local };
}

/** The "listening" log line: the URL for people first, the loopback one only beside it. */
export function listeningLine(urls: ServiceUrls): string {
  if (urls.base === urls.local) return `eKey access service listening on ${urls.base}`;
  return `eKey access service listening on ${urls.base} (on this machine also ${urls.local})`;
}
