import { describe, expect, it } from '@jest/globals';
import { AllowedHosts, hostName } from '../../../../src/api/host/allowed-hosts.js';
import type { HostAddress } from '../../../../src/api/host/host-addresses.js';

describe('hostName', () => {
  it.each([
    ['Example.ORG:8787', 'example.org'],
    ['example.org.', 'example.org'],
    ['[FD00::2]:8787', 'fd00::2'],
    ['[fe80::1%eth0]', 'fe80::1'],
    ['192.168.1.5', '192.168.1.5'],
  ])('%s → %s', (header, name) => {
    expect(hostName(header)).toBe(name);
  });

  it.each([[undefined], [''], ['[::1'], ['a b'], ['user@host']])('%s is no host', (header) => {
    expect(hostName(header)).toBeUndefined();
  });
});

describe('AllowedHosts (docs/design.md §9b)', () => {
  it("follows this host's addresses as they change, re-reading them at most every few seconds", () => {
    let addresses: HostAddress[] = [{ interfaceName: 'eth0', address: '192.168.1.5', family: 'IPv4', internal: false }];
    let now = 0;
    const hosts = new AllowedHosts({ network: { hostname: () => 'pi.fritz.box', addresses: () => addresses }, now: () => now });
    expect(hosts.allows('192.168.1.5:8787')).toBe(true);
    expect(hosts.allows('pi.local:8787')).toBe(true);
    expect(hosts.allows('pi.fritz.box')).toBe(true);
    addresses = [{ interfaceName: 'eth0', address: '192.168.1.9', family: 'IPv4', internal: false }];
    now = 1_000;
    expect(hosts.allows('192.168.1.9:8787')).toBe(false);
    now = 6_000;
    expect(hosts.allows('192.168.1.9:8787')).toBe(true);
    expect(hosts.allows('192.168.1.5:8787')).toBe(false);
  });

  it('allows the public URL, configured names and whole domains; nothing else', () => {
    const hosts = new AllowedHosts({
      publicUrl: 'https://Locks.Example.org/base',
      allowedHosts: ['Door.lan', '*.example.net'],
      network: { hostname: () => 'pi', addresses: () => [] },
    });
    for (const host of ['locks.example.org', 'door.lan:80', 'a.example.net', 'localhost:1', 'app.localhost', '127.0.0.2:9', '[::1]:9']) {
      expect({ host, allowed: hosts.allows(host) }).toEqual({ host, allowed: true });
    }
    for (const host of ['example.net', 'evil.example', 'locks.example.org.evil.example', 'door.lan.evil', undefined]) {
      expect({ host, allowed: hosts.allows(host) }).toEqual({ host, allowed: false });
    }
  });
});
