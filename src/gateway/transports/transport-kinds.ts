import { bluezKind } from './bluez/bluez-kind.js';
import { simulatorKind } from './simulator/simulator-kind.js';
import type { TransportKind } from './transport-kind.js';

/**
 * Every transport that can serve as the host's radio (config `bluetooth.transport`), each in its
 * folder under src/gateway/transports/. This list is the only place a kind is named: the config
 * schema builds its choices from it, the lock subsystem opens the configured one through it.
 * Adding a kind = its folder and one entry here (docs/architecture.md "Adding a transport").
 */
export const TRANSPORT_KINDS = [bluezKind, simulatorKind] as const satisfies readonly TransportKind[];

/** The id of one of {@link TRANSPORT_KINDS}: a value of config `bluetooth.transport`. */
export type TransportKindId = (typeof TRANSPORT_KINDS)[number]['id'];

/** The host's radio when the config names none (outside the demo): the host's own Bluetooth. */
export const DEFAULT_TRANSPORT_KIND: TransportKindId = bluezKind.id;

/** The kind with this id. */
export function transportKind(id: TransportKindId): TransportKind {
  const kind = TRANSPORT_KINDS.find((candidate) => candidate.id === id);
  if (kind === undefined) throw new Error(`No transport kind "${id}".`);
  return kind;
}
