import { describe, expect, it } from '@jest/globals';
import { gatewayText, signalWord } from '../../../src/domain/signal-words.js';

describe('signalWord (docs/design.md §4e)', () => {
  it.each([
    [-40, 'good'],
    [-70, 'good'],
    [-71, 'fair'],
    [-85, 'fair'],
    [-86, 'poor'],
    [-100, 'poor'],
  ] as const)('%i dBm is %s', (rssi, word) => {
    expect(signalWord(rssi)).toBe(word);
  });
});

describe('gatewayText', () => {
  it('says the proxy and the signal: "via Hall · signal good"', () => {
    expect(gatewayText({ id: 'Hall', name: 'Hall', rssi: -64 })).toBe('via Hall · signal good');
    expect(gatewayText({ id: 'Garage', name: 'Garage', rssi: -90 })).toBe('via Garage · signal poor');
  });

  it('names the host\'s adapter in words, and leaves out a signal it does not know', () => {
    expect(gatewayText({ id: 'host', name: 'host', rssi: -80 })).toBe("via this host's Bluetooth · signal fair");
    expect(gatewayText({ id: 'Hall', name: 'Hall', rssi: null })).toBe('via Hall');
  });
});
