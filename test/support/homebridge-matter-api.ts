import type { MatterAccessory, MatterAPI } from 'homebridge';
import type { EventEmitter } from 'node:events';
import type { HomebridgeApi } from './homebridge-api.js';

/** One `updateAccessoryState` as the bridge received it. */
export interface MatterStateUpdate {
  uuid: string;
  cluster: string;
  attributes: Record<string, unknown>;
}

/** What a Matter bridge would hold, recorded from the events Homebridge's real Matter API emits. */
export interface MatterBridgeRecorder {
  /** The real `api.matter` (Homebridge's MatterAPIImpl). */
  matter: MatterAPI;
  /** Registered accessories by UUID. */
  registered: Map<string, MatterAccessory>;
  /** State updates in the order they came. */
  updates: MatterStateUpdate[];
  calls: { register: number; unregister: number };
  /** The last value pushed for one attribute of one accessory (undefined: never pushed). */
  last(uuid: string, cluster: string, attribute: string): unknown;
}

interface MatterInternals {
  loadMatterAPI(): Promise<void>;
  _matterManager?: unknown;
  _matterServer?: unknown;
}

/**
 * Turns Matter on in Homebridge's real API object (`loadMatterAPI`, as Homebridge does before
 * loading plugins on a bridge with a `matter` block) and stands in for the bridge's Matter server
 * behind it: the API's register/unregister/update events are recorded, and `getAccessoryState`
 * answers for registered accessories. Validation, status classes, device types and UUIDs are
 * Homebridge's own. The matter.js server itself is exercised by test/e2e/matter.
 */
export async function enableMatter(api: HomebridgeApi): Promise<MatterBridgeRecorder> {
  const internals = api as unknown as MatterInternals;
  await internals.loadMatterAPI();
  const registered = new Map<string, MatterAccessory>();
  const states = new Map<string, Map<string, Record<string, unknown>>>();
  const updates: MatterStateUpdate[] = [];
  const calls = { register: 0, unregister: 0 };
  internals._matterManager = { hasActiveMatter: () => true, isBridgeServerStarting: () => false, getExternalServer: () => undefined };
  internals._matterServer = {
    getAccessoryState: (uuid: string, cluster: string) => (registered.has(uuid) ? { ...(states.get(uuid)?.get(cluster) ?? {}) } : undefined),
  };
  const events = api as unknown as EventEmitter;
  events.on('registerMatterPlatformAccessories', (_plugin: string, _platform: string, accessories: MatterAccessory[]) => {
    calls.register += 1;
    for (const accessory of accessories) {
      registered.set(accessory.UUID, accessory);
      states.set(accessory.UUID, new Map(Object.entries(accessory.clusters ?? {}).map(([cluster, attributes]) => [cluster, { ...attributes }])));
    }
  });
  events.on('unregisterMatterPlatformAccessories', (_plugin: string, _platform: string, accessories: MatterAccessory[]) => {
    calls.unregister += 1;
    for (const accessory of accessories) {
      registered.delete(accessory.UUID);
      states.delete(accessory.UUID);
    }
  });
  events.on('updateMatterAccessoryState', (uuid: string, cluster: string, attributes: Record<string, unknown>) => {
    updates.push({ uuid, cluster, attributes: { ...attributes } });
    const clusters = states.get(uuid);
    if (clusters) clusters.set(cluster, { ...(clusters.get(cluster) ?? {}), ...attributes });
  });
  const matter = api.matter;
  if (!matter) throw new Error('Homebridge did not load its Matter API');
  return {
    matter,
    registered,
    updates,
    calls,
    last: (uuid, cluster, attribute) => [...updates].reverse().find((update) => update.uuid === uuid && update.cluster === cluster && attribute in update.attributes)?.attributes[attribute],
  };
}
