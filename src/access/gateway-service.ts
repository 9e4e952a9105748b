/**
 * Gateway devices as lock owners and admins see them (docs/design.md §4e): `GET /gateways` and
 * each lock's `gateway` in the lock lists. A gateway device is a radio that reaches locks — the
 * host's own adapter (`host`) or an ESPHome Bluetooth proxy, by its configured name. Only owners
 * and admins of a lock see how it is reached, and only for the locks they own or administer;
 * everyone else sees none of it (`GET /gateways` is 404 for a caller who manages no lock, as for
 * any object the caller may not see).
 */
import type { Clock } from '../domain/clock.js';
import { roleOfType } from '../domain/ekey-permissions.js';
import { isUsableAt } from '../domain/ekey-validity.js';
import { notFound } from '../domain/errors.js';
import type { EKeyRepository } from '../store/ekey-repository.js';
import type { LockRecord, LockRepository } from '../store/lock-repository.js';

/** The id of the host's adapter among the gateways. */
export const HOST_GATEWAY_ID = 'host';

/** One gateway device as the lock subsystem knows it now. */
export interface GatewayReading {
  name: string;
  state: 'online' | 'offline' | 'unauthorized' | 'unavailable';
  /** `host:port` of a proxy; null for the host's adapter. */
  address: string | null;
  connectionsFree: number | null;
  connectionsLimit: number | null;
  /** Devices it heard or holds a link to, by upper-case address. */
  devices: { address: string; rssi: number | null; seenAt: number | null; connected: boolean }[];
}

/** Where the service reads its gateways from (the lock subsystem's composite transport). */
export interface GatewayDirectory {
  gateways(): GatewayReading[];
  /** The gateway that reaches the device at this address now; null when none hears it. */
  routeOf(address: string): { gateway: string; rssi: number | null; seenAt: number | null } | null;
}

/** `GET /gateways`: one gateway. */
export interface GatewayView {
  id: string;
  name: string;
  kind: 'host' | 'esphome';
  state: GatewayReading['state'];
  address: string | null;
  connections_free: number | null;
  connections_limit: number | null;
  locks: { lock_id: string; rssi: number | null; seen_at: string | null; connected: boolean }[];
}

/** A lock's `gateway` in the lock lists (owners and admins). */
export interface LockGatewayView {
  id: string;
  name: string;
  rssi: number | null;
  seen_at: string | null;
}

export interface GatewayServiceDependencies {
  locks: LockRepository;
  ekeys: EKeyRepository;
  clock: Clock;
  /** Absent: the service has no lock subsystem (the CLI's tools): no gateway. */
  directory?: GatewayDirectory;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export class GatewayService {
  constructor(private readonly deps: GatewayServiceDependencies) {}

  /** `GET /gateways`: every gateway, each with the locks the caller owns or administers that it hears or holds. */
  list(callerId: string): { gateways: GatewayView[] } {
    const managed = this.managedLocks(callerId);
    if (managed.length === 0) throw notFound('gateways');
    const byAddress = new Map<string, LockRecord>();
    for (const lock of managed) if (lock.overBluetooth && lock.bleAddress !== null) byAddress.set(lock.bleAddress.toUpperCase(), lock);
    const gateways = this.deps.directory?.gateways() ?? [];
    return {
      gateways: gateways.map((gateway) => ({
        id: gateway.name,
        name: gateway.name,
        kind: gateway.name === HOST_GATEWAY_ID ? 'host' : 'esphome',
        state: gateway.state,
        address: gateway.address,
        connections_free: gateway.connectionsFree,
        connections_limit: gateway.connectionsLimit,
        locks: gateway.devices.flatMap((device) => {
          const lock = byAddress.get(device.address);
          return lock === undefined ? [] : [{ lock_id: lock.id, rssi: device.rssi, seen_at: iso(device.seenAt), connected: device.connected }];
        }),
      })),
    };
  }

  /** A lock's `gateway` (the caller is known to own or administer it): the gateway that reaches it now, or null. */
  gatewayOf(lock: LockRecord): LockGatewayView | null {
    if (!lock.overBluetooth || lock.bleAddress === null) return null;
    const route = this.deps.directory?.routeOf(lock.bleAddress.toUpperCase()) ?? null;
    if (route === null) return null;
    return { id: route.gateway, name: route.gateway, rssi: route.rssi, seen_at: iso(route.seenAt) };
  }

  /** Every gateway with its state and free slots, for the settings page (its token stands for the household's owner). */
  summary(): { id: string; name: string; kind: 'host' | 'esphome'; state: GatewayReading['state']; address: string | null; connections_free: number | null; connections_limit: number | null }[] {
    return (this.deps.directory?.gateways() ?? []).map((gateway) => ({
      id: gateway.name,
      name: gateway.name,
      kind: gateway.name === HOST_GATEWAY_ID ? 'host' : 'esphome',
      state: gateway.state,
      address: gateway.address,
      connections_free: gateway.connectionsFree,
      connections_limit: gateway.connectionsLimit,
    }));
  }

  /** The locks the caller holds a usable owner or admin key on now. */
  private managedLocks(callerId: string): LockRecord[] {
    const now = this.deps.clock.now();
    const locks: LockRecord[] = [];
    for (const key of this.deps.ekeys.listByUser(callerId)) {
      const role = roleOfType(key.type);
      if (key.status !== 'accepted' || (role !== 'owner' && role !== 'admin')) continue;
      const lock = this.deps.locks.findById(key.lock_id);
      if (lock !== undefined && isUsableAt(key, now, lock.timeZone)) locks.push(lock);
    }
    return locks;
  }
}
