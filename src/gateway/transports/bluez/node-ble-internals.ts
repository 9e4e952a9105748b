import type { EventEmitter } from 'node:events';

/**
 * The `helper` (BusHelper) every node-ble 1.13 Device and GattCharacteristic holds. node-ble
 * never removes the D-Bus signal listeners it installs through it, so the BlueZ transport
 * releases them itself at the end of every connection (docs/ble-protocol.md "D-Bus match rules").
 */
export interface BusHelperInternals extends EventEmitter {
  /** D-Bus object path of the node-ble object, e.g. `/org/bluez/hci0`. */
  readonly object: string;
  /** org.freedesktop.DBus.Properties.Get on the helper's interface. */
  prop(name: string): Promise<unknown>;
  /** Drops the helper's own and its proxy's PropertiesChanged listeners (and so the match rule). */
  removeListeners(): void;
  /** Calls a method of the helper's interface on its (reused) proxy. */
  callMethod(name: string, ...args: unknown[]): Promise<unknown>;
}

/**
 * The BusHelper of a node-ble object.
 * @throws Error when node-ble's internals no longer look as expected (a version bump).
 */
export function helperOf(object: object): BusHelperInternals {
  const helper = (object as { helper?: Partial<BusHelperInternals> }).helper;
  if (helper === undefined || typeof helper.prop !== 'function' || typeof helper.removeListeners !== 'function' || typeof helper.callMethod !== 'function' || typeof helper.on !== 'function' || typeof helper.object !== 'string') {
    throw new Error('node-ble internals changed: BusHelper not found (the BlueZ transport is written against node-ble 1.13).');
  }
  return helper as BusHelperInternals;
}

/** Value of a D-Bus Variant as node-ble forwards it in PropertiesChanged. */
export function variantValue(changed: unknown, name: string): unknown {
  if (typeof changed !== 'object' || changed === null || !(name in changed)) return undefined;
  const variant = (changed as Record<string, { value?: unknown } | undefined>)[name];
  return variant?.value;
}
