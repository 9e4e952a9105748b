/**
 * A Bluetooth signal in words (docs/design.md §4e): `good` at −70 dBm or stronger, `fair` down to
 * −85 dBm, `poor` below — how the web app and the settings page say how well a gateway device (the
 * host's adapter or an ESPHome proxy) hears a lock. At −85 dBm and below, connects through a proxy
 * start to fail now and then; below about −90 dBm they mostly do (docs/gateways.md "Signal").
 */
export type SignalWord = 'good' | 'fair' | 'poor';

export function signalWord(rssi: number): SignalWord {
  if (rssi >= -70) return 'good';
  if (rssi >= -85) return 'fair';
  return 'poor';
}

/** "via Hall · signal good" for a lock's gateway; "via Hall" when its signal is not known (a link kept open, not heard). */
export function gatewayText(gateway: { id: string; name: string; rssi: number | null }): string {
  const name = gateway.id === 'host' ? "this host's Bluetooth" : gateway.name;
  return gateway.rssi === null ? `via ${name}` : `via ${name} · signal ${signalWord(gateway.rssi)}`;
}
