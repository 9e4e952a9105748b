import type { Hearing } from './gateway-hearings.js';

/** The name of the host's own adapter among the gateways (docs/architecture.md "Transports"). */
export const HOST_GATEWAY = 'host';

/** An advertisement counts for routing this long after it was heard, ms. */
export const HEARD_WITHIN_MS = 60_000;

/** What the route of one address is decided from. */
export interface RouteQuestion {
  /** Every gateway's name, in the configured order (the host's first where it takes part). */
  gateways: readonly string[];
  /** What a gateway last heard from the address. */
  heard: (gateway: string) => Hearing | undefined;
  /** Now, on the composite's clock, ms since the epoch. */
  now: number;
  /** The gateways that may serve the address (config `locks[].gateways`); undefined: every one. */
  allowed?: readonly string[] | undefined;
}

/**
 * The gateways to try for a connect, in order (docs/architecture.md "Transports"): those that
 * heard the address within the last {@link HEARD_WITHIN_MS}, strongest signal first (an unknown
 * signal counts as the weakest), the host first among equals, then the configured order; when none
 * heard it, every gateway in the configured order. Only gateways the allow-list names take part.
 */
export function connectOrder(question: RouteQuestion): string[] {
  const allowed = question.allowed;
  const candidates = question.gateways.filter((gateway) => allowed === undefined || allowed.includes(gateway));
  const recent = candidates
    .map((gateway, position) => ({ gateway, position, hearing: question.heard(gateway) }))
    .filter((entry): entry is typeof entry & { hearing: Hearing } => entry.hearing !== undefined && question.now - entry.hearing.seenAt <= HEARD_WITHIN_MS);
  if (recent.length === 0) return candidates;
  const strength = (hearing: Hearing): number => hearing.rssi ?? Number.NEGATIVE_INFINITY;
  recent.sort(
    (a, b) =>
      strength(b.hearing) - strength(a.hearing) ||
      Number(b.gateway === HOST_GATEWAY) - Number(a.gateway === HOST_GATEWAY) ||
      a.position - b.position,
  );
  return recent.map((entry) => entry.gateway);
}
