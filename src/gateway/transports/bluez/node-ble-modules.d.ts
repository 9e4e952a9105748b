/**
 * node-ble 1.13 publishes types only for its entry point. The BlueZ transport builds its own
 * `Bluetooth` on a bus it owns (to attach an error listener and repair match-rule refcounting
 * before first use), so it imports the class module directly.
 */
declare module 'node-ble/src/Bluetooth.js' {
  import type { MessageBus } from 'dbus-next';
  import type NodeBle from 'node-ble';

  const Bluetooth: new (bus: MessageBus) => NodeBle.Bluetooth;
  export default Bluetooth;
}
