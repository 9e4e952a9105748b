import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import dbus, { type MessageBus } from 'dbus-next';
import { busSubscriptionCounts, daemonMatchRuleCount, repairMatchRuleRefcount } from '../../../src/gateway/transports/bluez/dbus-match-rules.js';
import { startPrivateDbusDaemon, type PrivateDbusDaemon } from '../../support/fake-bluez/private-dbus-daemon.js';

let daemon: PrivateDbusDaemon;
const buses: MessageBus[] = [];

beforeAll(async () => {
  daemon = await startPrivateDbusDaemon();
});

afterAll(async () => {
  for (const bus of buses) bus.disconnect();
  await daemon.stop();
});

async function connectedBus(repair: boolean): Promise<MessageBus> {
  const bus = dbus.sessionBus({ busAddress: daemon.address });
  bus.on('error', () => undefined);
  buses.push(bus);
  if (repair) repairMatchRuleRefcount(bus);
  await new Promise<void>((resolve) => bus.once('connect', () => {
    resolve();
  }));
  return bus;
}

/** Subscribes and unsubscribes a signal listener on a fresh proxy, as node-ble does per connection. */
async function subscribeCycles(bus: MessageBus, cycles: number): Promise<void> {
  for (let i = 0; i < cycles; i += 1) {
    const proxy = await bus.getProxyObject('org.freedesktop.DBus', '/org/freedesktop/DBus');
    const iface = proxy.getInterface('org.freedesktop.DBus');
    const listener = (): void => undefined;
    iface.on('NameOwnerChanged', listener);
    iface.off('NameOwnerChanged', listener);
  }
  // AddMatch/RemoveMatch are sent without waiting; one more round trip flushes them.
  await daemonMatchRuleCount(bus);
}

describe('D-Bus match rules', () => {
  it('leak with dbus-next as shipped (the bug the BlueZ transport works around)', async () => {
    const bus = await connectedBus(false);
    const before = await daemonMatchRuleCount(bus);
    await subscribeCycles(bus, 20);
    const after = await daemonMatchRuleCount(bus);
    expect(before).not.toBeNull();
    expect((after ?? 0) - (before ?? 0)).toBe(20);
  });

  it('stay flat once refcounting is repaired, on the daemon and in dbus-next', async () => {
    const bus = await connectedBus(true);
    const before = await daemonMatchRuleCount(bus);
    await subscribeCycles(bus, 20);
    expect(await daemonMatchRuleCount(bus)).toBe(before);
    expect(busSubscriptionCounts(bus)).toEqual({ matchRules: 0, signalListeners: 0 });
  });

  it('send one AddMatch for many subscribers of the same rule and RemoveMatch after the last', async () => {
    const bus = await connectedBus(true);
    const before = (await daemonMatchRuleCount(bus)) ?? 0;
    const proxies = await Promise.all([1, 2, 3].map(() => bus.getProxyObject('org.freedesktop.DBus', '/org/freedesktop/DBus')));
    const listener = (): void => undefined;
    for (const proxy of proxies) proxy.getInterface('org.freedesktop.DBus').on('NameOwnerChanged', listener);
    expect(await daemonMatchRuleCount(bus)).toBe(before + 1);
    for (const proxy of proxies.slice(0, 2)) proxy.getInterface('org.freedesktop.DBus').off('NameOwnerChanged', listener);
    expect(await daemonMatchRuleCount(bus)).toBe(before + 1);
    proxies[2]?.getInterface('org.freedesktop.DBus').off('NameOwnerChanged', listener);
    expect(await daemonMatchRuleCount(bus)).toBe(before);
  });
});
