import { describe, expect, it } from '@jest/globals';
import { listeningLine, serviceUrls } from '../../../../src/api/host/service-urls.js';
import type { HostAddress, HostNetwork } from '../../../../src/api/host/host-addresses.js';

const lo: HostAddress[] = [
  { interfaceName: 'lo', address: '127.0.0.1', family: 'IPv4', internal: true },
  { interfaceName: 'lo', address: '::1', family: 'IPv6', internal: true },
];
const network = (...addresses: HostAddress[]): HostNetwork => ({ hostname: () => 'pi', addresses: () => [...lo, ...addresses] });
const v4 = (interfaceName: string, address: string): HostAddress => ({ interfaceName, address, family: 'IPv4', internal: false });
const v6 = (interfaceName: string, address: string): HostAddress => ({ interfaceName, address, family: 'IPv6', internal: false });

describe('serviceUrls (docs/design.md §7)', () => {
  it('uses api.public_url when set, without its trailing slash', () => {
    const urls = serviceUrls({ publicUrl: 'https://locks.example.org/', host: '0.0.0.0', port: 8787, network: network(v4('eth0', '192.168.1.5')) });
    expect(urls).toEqual({ base: 'https://locks.example.org', local: 'http://127.0.0.1:8787' });
  });

  it('on every interface: a home-network address, never loopback or link-local; loopback only beside it', () => {
    const urls = serviceUrls({
      publicUrl: undefined,
      host: '0.0.0.0',
      port: 8787,
      network: network(v6('eth0', 'fe80::1'), v4('eth0', '169.254.3.4'), v4('docker0', '172.17.0.1'), v4('tun0', '100.64.0.7'), v4('wlan0', '192.168.1.5')),
    });
    expect(urls).toEqual({ base: 'http://192.168.1.5:8787', local: 'http://127.0.0.1:8787' });
    expect(listeningLine(urls)).toBe('eKey access service listening on http://192.168.1.5:8787 (on this machine also http://127.0.0.1:8787)');
  });

  it('falls back to another IPv4, then IPv6 in brackets', () => {
    expect(serviceUrls({ publicUrl: undefined, host: '::', port: 1, network: network(v6('eth0', 'fd00::2'), v4('tun0', '100.64.0.7')) }).base).toBe('http://100.64.0.7:1');
    expect(serviceUrls({ publicUrl: undefined, host: '::', port: 1, network: network(v6('eth0', 'fd00::2')) }).base).toBe('http://[fd00::2]:1');
  });

  it('with only loopback: the loopback URL and one actionable line', () => {
    const urls = serviceUrls({ publicUrl: undefined, host: '0.0.0.0', port: 8787, network: network(v4('eth0', '169.254.9.9')) });
    expect(urls.base).toBe('http://127.0.0.1:8787');
    expect(urls.problem).toMatch(/^No address of this host that other devices can reach was found.*set api\.public_url/);
  });

  it('on loopback only: says so, unless loopback is intended (the demo)', () => {
    const listening = { publicUrl: undefined, host: '127.0.0.1', port: 9, network: network(v4('eth0', '192.168.1.5')) };
    expect(serviceUrls(listening)).toMatchObject({ base: 'http://127.0.0.1:9', problem: expect.stringMatching(/Set api\.host to 0\.0\.0\.0/) as unknown });
    expect(serviceUrls({ ...listening, loopbackIntended: true })).toEqual({ base: 'http://127.0.0.1:9', local: 'http://127.0.0.1:9' });
  });

  it('on one named address: that address', () => {
    expect(serviceUrls({ publicUrl: undefined, host: '192.168.1.5', port: 80, network: network() })).toEqual({ base: 'http://192.168.1.5:80', local: 'http://192.168.1.5:80' });
  });
});
