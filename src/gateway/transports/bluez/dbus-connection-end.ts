import type { MessageBus } from 'dbus-next';

/**
 * Calls `listener` when the bus connection's stream ends (daemon restarted or socket closed).
 * dbus-next 0.10.2 does not forward that from its connection to the MessageBus, and calls on an
 * ended stream never settle, so without this a dead session would only show as timeouts.
 */
export function onBusConnectionEnd(bus: MessageBus, listener: () => void): void {
  const connection = (bus as unknown as { _connection?: { on?: (event: string, listener: () => void) => void } })._connection;
  connection?.on?.('end', listener);
}
