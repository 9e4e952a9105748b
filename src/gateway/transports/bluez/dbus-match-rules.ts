import dbus, { type MessageBus } from 'dbus-next';

/**
 * The parts of a dbus-next 0.10.2 MessageBus this module touches. They are private in
 * dbus-next's typings; the shape is pinned by package-lock and checked at run time.
 */
interface MessageBusInternals {
  _matchRules: Record<string, number>;
  _signals: NodeJS.EventEmitter;
  _connection: { stream: { writable: boolean } };
  _addMatch(match: string): Promise<unknown>;
  _removeMatch(match: string): Promise<unknown>;
  call(message: InstanceType<typeof dbus.Message>): Promise<unknown>;
}

function internalsOf(bus: MessageBus): MessageBusInternals {
  const candidate = bus as unknown as Partial<MessageBusInternals>;
  if (typeof candidate._addMatch !== 'function' || typeof candidate._removeMatch !== 'function' || typeof candidate._matchRules !== 'object') {
    throw new Error('dbus-next internals changed: cannot repair match-rule refcounting (see docs/ble-protocol.md "D-Bus match rules").');
  }
  return candidate as MessageBusInternals;
}

function busCall(internals: MessageBusInternals, member: 'AddMatch' | 'RemoveMatch', match: string): Promise<unknown> {
  return internals.call(
    new dbus.Message({
      path: '/org/freedesktop/DBus',
      destination: 'org.freedesktop.DBus',
      interface: 'org.freedesktop.DBus',
      member,
      signature: 's',
      body: [match],
    }),
  );
}

/**
 * Repairs match-rule refcounting on one MessageBus instance.
 *
 * dbus-next 0.10.2 calls `hasOwnProperty.call(match, this._matchRules)` with its arguments
 * swapped, so every subscription sends AddMatch and no unsubscription ever sends RemoveMatch:
 * the daemon's per-connection rule limit (512 on Debian's system bus) is reached after ~128
 * connect cycles and the bus drops the connection. This replacement counts per rule string:
 * AddMatch on the first subscriber, RemoveMatch when the last one leaves.
 */
export function repairMatchRuleRefcount(bus: MessageBus): void {
  const internals = internalsOf(bus);
  internals._addMatch = (match: string): Promise<unknown> => {
    const current = internals._matchRules[match] ?? 0;
    internals._matchRules[match] = current + 1;
    if (current > 0) return Promise.resolve();
    return busCall(internals, 'AddMatch', match);
  };
  internals._removeMatch = (match: string): Promise<unknown> => {
    const current = internals._matchRules[match];
    if (current === undefined) return Promise.resolve();
    if (current > 1) {
      internals._matchRules[match] = current - 1;
      return Promise.resolve();
    }
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- a refcount table keyed by rule string
    delete internals._matchRules[match];
    if (!internals._connection.stream.writable) return Promise.resolve();
    return busCall(internals, 'RemoveMatch', match);
  };
}

/** Match rules this bus believes it holds, and signal listeners it keeps, for diagnostics and soak tests. */
export function busSubscriptionCounts(bus: MessageBus): { matchRules: number; signalListeners: number } {
  const internals = internalsOf(bus);
  const signals = internals._signals;
  let signalListeners = 0;
  for (const name of signals.eventNames()) signalListeners += signals.listenerCount(name);
  return { matchRules: Object.keys(internals._matchRules).length, signalListeners };
}

/**
 * Asks the bus daemon how many match rules it holds for this connection
 * (org.freedesktop.DBus.Debug.Stats.GetConnectionStats). Null when the daemon has no stats
 * interface or refuses.
 */
export async function daemonMatchRuleCount(bus: MessageBus): Promise<number | null> {
  const uniqueName = (bus as unknown as { name: string | null }).name;
  if (uniqueName === null) return null;
  try {
    const daemon = await bus.getProxyObject('org.freedesktop.DBus', '/org/freedesktop/DBus');
    const stats = daemon.getInterface('org.freedesktop.DBus.Debug.Stats');
    const getStats = stats.GetConnectionStats as ((name: string) => Promise<Record<string, { value: unknown }>>) | undefined;
    if (getStats === undefined) return null;
    const result = await getStats(uniqueName);
    const rules = result.MatchRules?.value;
    return typeof rules === 'number' ? rules : null;
  } catch {
    return null;
  }
}

/**
 * Subscribes the connection to signals matching `rule` without a proxy object, through the
 * repaired refcount (so it shows in {@link busSubscriptionCounts} and a rule shared with a proxy
 * is sent once). Messages arrive on the bus's `message` event.
 */
export async function addMatchRule(bus: MessageBus, rule: string): Promise<void> {
  await internalsOf(bus)._addMatch(rule);
}

/** Releases one {@link addMatchRule}; RemoveMatch goes out when no one else holds the rule. */
export async function removeMatchRule(bus: MessageBus, rule: string): Promise<void> {
  await internalsOf(bus)._removeMatch(rule);
}
