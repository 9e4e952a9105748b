import { describe, expect, it } from '@jest/globals';
import { checkPluginConfig } from '../../../src/config/plugin-config.js';

/**
 * docs/design.md §9 "Config as the Homebridge UI saves it": the config check leaves out what cannot
 * be used, one line each, and never refuses the platform as a whole.
 */

const OWNER = 'olivia@example.com';
const FRONT = { name: 'Front Door', address: 'D0:E1:00:00:00:01', key: 'ab'.repeat(32), owner_email: OWNER };
const CLIENT = { client_id: '2f1e4c1a-8b7d-4e6f-9a0b-1c2d3e4f5a6b', client_secret: 'a-secret-of-sixteen-or-more', redirect_uris: ['https://app.example.org/callback'] };

describe('checkPluginConfig: what the Homebridge UI\'s form saves untouched', () => {
  it('runs the demo exactly as the block before the save, saying which empty entries it ignored', () => {
    // The reproduction: the form turned { demo: true } into this.
    const saved = {
      platform: 'EKeyLocks',
      name: 'eKey Locks',
      demo: true,
      matter: true,
      locks: [{ family: 'ekey', gateway: true, keypad: false }],
      clients: [{ public: false }],
      users: [{ can_send_ekeys: true }],
      bluetooth: { transport: 'bluez' },
      smtp: { secure: false },
      homekit: { unlatch: 'off' },
    };
    const check = checkPluginConfig(saved);
    expect(check.config).toEqual({ platform: 'EKeyLocks', name: 'eKey Locks', demo: true, matter: true, locks: [], clients: [], users: [] });
    expect(check.problems).toEqual([]);
    expect(check.skippedLocks).toEqual([]);
    expect(check.notes).toEqual([
      'Locks: entry 1 (locks[0]) has nothing filled in — the settings form adds an empty entry to every list — so it is ignored.',
      'OAuth clients: entry 1 (clients[0]) has nothing filled in — the settings form adds an empty entry to every list — so it is ignored.',
      'User policies: entry 1 (users[0]) has nothing filled in — the settings form adds an empty entry to every list — so it is ignored.',
    ]);
  });

  it('reads a field the user cleared ("" or null) as not set', () => {
    const check = checkPluginConfig({ api: { public_url: '', port: null, host: '127.0.0.1' }, locks: [{ ...FRONT, id: '', time_zone: '' }], users: [{ email: OWNER, ekey_quota: null }] });
    expect(check.config).toEqual({ api: { host: '127.0.0.1' }, locks: [FRONT], users: [{ email: OWNER }] });
    expect([...check.problems, ...check.notes]).toEqual([]);
  });

  it('keeps an entry that holds anything of its own, even with every checkbox off', () => {
    const check = checkPluginConfig({ locks: [{ ...FRONT, gateway: false, keypad: false }] });
    expect(check.config?.locks).toEqual([{ ...FRONT, gateway: false, keypad: false }]);
    expect(check.notes).toEqual([]);
  });

  it('drops a nested list\'s empty entries (a lock\'s linked Nuki users) without a word', () => {
    const nuki = { name: 'Back Door', family: 'nuki', address: 'D0:E1:00:00:00:03', owner_email: OWNER };
    const check = checkPluginConfig({ locks: [{ ...nuki, nuki_users: [{}, { authorization: "Olivia's iPhone", email: OWNER }] }] });
    expect(check.config?.locks).toEqual([{ ...nuki, nuki_users: [{ authorization: "Olivia's iPhone", email: OWNER }] }]);
    expect([...check.problems, ...check.notes]).toEqual([]);
  });
});

describe('checkPluginConfig: what cannot be used is left out, one line each', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, string[]]>([
    [
      'a setting with a bad value: its default applies',
      { api: { port: 99999, token_ttl_s: 600 } },
      { api: { token_ttl_s: 600 } },
      ['api.port: must be at most 65535; left out, so its default applies.'],
    ],
    [
      'a setting that does not exist in its section',
      { homekit: { colour: 'red', low_battery_threshold: 0.3 } },
      { homekit: { low_battery_threshold: 0.3 } },
      ['homekit.colour is not a setting of HomeKit (homekit): ignored.'],
    ],
    [
      'an incomplete section: the service runs without it',
      { smtp: { host: 'mail.example.org', secure: true } },
      {},
      ['E-mail (invitations) (smtp) is left out: smtp.from is missing. Until it is filled in, the service runs without it.'],
    ],
    [
      'a section of the wrong type',
      { events: 'forever', demo: true },
      { demo: true },
      ['events: must be a group of settings; left out, so its default applies.'],
    ],
    [
      'one bad entry of a list of values: the others stay',
      { api: { trusted_proxies: ['127.0.0.1', 'my proxy', '10.0.0.0/8'] } },
      { api: { trusted_proxies: ['127.0.0.1', '10.0.0.0/8'] } },
      ['api.trusted_proxies[1]: "my proxy" is not an address or range like 192.168.1.10 or 10.0.0.0/24; left out of the list.'],
    ],
    [
      'a top-level setting of the wrong type',
      { demo: 'yes', matter: false },
      { matter: false },
      ['demo: must be on or off (true or false); left out, so its default applies.'],
    ],
    [
      'an OAuth client that cannot sign anyone in',
      { clients: [{ ...CLIENT, redirect_uris: [] }, CLIENT] },
      { clients: [CLIENT] },
      ['OAuth client "2f1e4c1a-8b7d-4e6f-9a0b-1c2d3e4f5a6b" (clients[0]) is left out: redirect_uris: needs at least 1 entry. It cannot sign anyone in until this is fixed.'],
    ],
    [
      'an OAuth client that is neither public nor has a secret (the form ticks nothing by itself)',
      { clients: [{ client_id: CLIENT.client_id, redirect_uris: CLIENT.redirect_uris, public: false, name: 'Phone app' }] },
      { clients: [] },
      ['OAuth client "Phone app" (clients[0]) is left out: it is neither public nor has a client secret. Tick "Public client" (an app that signs in with PKCE) or give it a secret.'],
    ],
  ])('%s', (_title, raw, expected, problems) => {
    const check = checkPluginConfig(raw);
    expect(check.config).toEqual(expected);
    expect(check.problems).toEqual(problems);
    expect(check.errors).toEqual([]);
  });

  it('names each entry by its place in the config as saved, also after entries ignored or left out before it', () => {
    const check = checkPluginConfig({
      locks: [{ gateway: true }, { ...FRONT, address: 'nope' }, { ...FRONT, name: 'Shed', address: 'D0:E1:00:00:00:02', time_zone: 'Mars/Olympus_Mons' }, FRONT],
    });
    expect(check.config?.locks).toEqual([FRONT]);
    expect(check.skippedLocks).toEqual([
      'Lock "Front Door" (locks[1]) is left out: address: "nope" is not a Bluetooth address like AA:BB:CC:DD:EE:FF. The other locks run.',
      'Lock "Shed" (locks[2]) is left out: time_zone: "Mars/Olympus_Mons" is not an IANA time zone (e.g. "Europe/Berlin"). The other locks run.',
    ]);
    expect(check.notes).toHaveLength(1);
  });

  it('never repeats a secret in a line', () => {
    const check = checkPluginConfig({
      locks: [{ ...FRONT, key: 'my-secret-lock-key' }],
      clients: [{ ...CLIENT, client_secret: 'short-secret' }],
      smtp: { host: 'mail.example.org', from: 'locks@example.org', password: 12345 },
    });
    expect(check.problems).toHaveLength(3);
    const text = check.problems.join('\n');
    for (const secret of ['my-secret-lock-key', 'short-secret', '12345']) expect(text).not.toContain(secret);
    expect(text).toContain('key: the value given is not 64 hexadecimal characters');
  });
});

describe('checkPluginConfig: where leaving out would widen access', () => {
  it('applies a user policy it cannot read to its e-mail as "may not send eKeys"', () => {
    const check = checkPluginConfig({ users: [{ email: 'alex@example.com', ekey_quota: -1, can_send_ekeys: true }, { email: 'not an address' }] });
    expect(check.config?.users).toEqual([{ email: 'alex@example.com', can_send_ekeys: false }]);
    expect(check.problems).toEqual([
      'User policy of alex@example.com (users[0]) cannot be read: ekey_quota: must be at least 0. Until it is fixed, alex@example.com may not send eKeys.',
      'User policy #2 (users[1]) is left out: email: "not an address" is not an e-mail address.',
    ]);
  });

  it('keeps a HomeKit user that is not an e-mail address as given: no account matches it, so HomeKit is refused rather than acting as the owner', () => {
    const check = checkPluginConfig({ homekit: { user_email: 'guest at home', low_battery_threshold: 0.3 } });
    expect(check.config?.homekit).toEqual({ user_email: 'guest at home', low_battery_threshold: 0.3 });
    expect(check.problems).toEqual(['homekit.user_email: "guest at home" is not an e-mail address; HomeKit\'s commands are refused until it names an account.']);
  });
});

describe('checkPluginConfig: the platform runs whatever the block holds', () => {
  it.each<unknown>([
    { locks: 'Front Door' },
    { locks: [7, 'x', [], FRONT], clients: {}, users: [null] },
    { api: [], bluetooth: 5, smtp: { host: 7, from: [] }, homekit: { arrival_triggers: 'x' } },
    { name: 5, platform: 'EKeyLocks', _bridge: { username: 'AA' }, locks: [{ ...FRONT, nuki_users: 'x' }] },
  ])('%j', (raw) => {
    const check = checkPluginConfig(raw);
    expect(check.config).toBeDefined();
    expect(check.errors).toEqual([]);
  });

  it('refuses only a block that is not an object', () => {
    for (const raw of [null, [], 'demo', 7]) {
      const check = checkPluginConfig(raw);
      expect(check.config).toBeUndefined();
      expect(check.errors.length).toBeGreaterThan(0);
    }
  });
});

describe('checkPluginConfig: the mqtt section (docs/design.md §11)', () => {
  const MQTT = { url: 'mqtt://broker.local:1883', username: 'ha', password: 'broker-secret', base_topic: 'ekey-locks', discovery: true, acting_user: OWNER };

  it('keeps a good section as given', () => {
    const check = checkPluginConfig({ demo: true, mqtt: MQTT });
    expect(check.config).toEqual({ demo: true, mqtt: MQTT });
    expect(check.problems).toEqual([]);
  });

  it('leaves the whole section out with one line naming every field at fault, never its password, and runs the rest', () => {
    const check = checkPluginConfig({ demo: true, locks: [FRONT], mqtt: { ...MQTT, url: 'http://broker.local', acting_user: 'nobody', base_topic: 'a/#', protocol_version: '6', password: 7 } });
    expect(check.config).toEqual({ demo: true, locks: [FRONT] });
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]).toMatch(/^MQTT \(Home Assistant\) \(mqtt\) is left out: /);
    for (const field of ['mqtt.url', 'mqtt.acting_user', 'mqtt.base_topic', 'mqtt.protocol_version', 'mqtt.password']) expect(check.problems[0]).toContain(field);
    expect(check.problems[0]).toContain('Until it is fixed, the service runs without it.');
    expect(check.problems[0]).not.toContain('broker-secret');
  });

  it('leaves out a section without a URL with one line; an unknown setting too', () => {
    expect(checkPluginConfig({ mqtt: { username: 'ha' } }).problems).toEqual(['MQTT (Home Assistant) (mqtt) is left out: mqtt.url: is missing. Until it is fixed, the service runs without it.']);
    const unknown = checkPluginConfig({ mqtt: { ...MQTT, retain_commands: true } });
    expect(unknown.config).toEqual({});
    expect(unknown.problems).toEqual(['MQTT (Home Assistant) (mqtt) is left out: mqtt.retain_commands: is not a setting here. Until it is fixed, the service runs without it.']);
  });

  it('ignores a section the form saved untouched (only its checkbox), silently', () => {
    const check = checkPluginConfig({ mqtt: { discovery: true } });
    expect(check.config).toEqual({});
    expect([...check.problems, ...check.notes]).toEqual([]);
  });
});

describe('checkPluginConfig: Bluetooth proxies (docs/design.md §4e)', () => {
  const KEY = Buffer.alloc(32, 9).toString('base64');
  const HALL = { name: 'Hall', host: 'hall-proxy.local', encryption_key: KEY };

  it('keeps proxies, use_host_adapter and a lock\'s gateways as given', () => {
    const check = checkPluginConfig({ locks: [{ ...FRONT, gateways: ['Hall', 'host'] }], bluetooth: { use_host_adapter: false, proxies: [HALL, { name: 'Porch', host: '192.168.1.41', port: 6054 }] } });
    expect(check.problems).toEqual([]);
    expect(check.config?.bluetooth).toEqual({ use_host_adapter: false, proxies: [HALL, { name: 'Porch', host: '192.168.1.41', port: 6054 }] });
    expect(check.config?.locks?.[0]?.gateways).toEqual(['Hall', 'host']);
  });

  it('leaves a proxy with a malformed key out whole (never runs it unencrypted) and never repeats the key', () => {
    const wrong = 'not-a-key-but-a-secret-all-the-same';
    const check = checkPluginConfig({ bluetooth: { proxies: [{ ...HALL, encryption_key: wrong }, { name: 'Porch', host: 'porch.local', encryption_key: KEY }] } });
    expect(check.config?.bluetooth?.proxies).toEqual([{ name: 'Porch', host: 'porch.local', encryption_key: KEY }]);
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]).toContain('bluetooth.proxies[0].encryption_key');
    expect(check.problems[0]).toContain('left out of the list');
    expect(check.problems.join('\n') + JSON.stringify(check.fieldErrors)).not.toContain(wrong);
  });

  it('refuses "host" as a proxy name, and a second proxy of the same name', () => {
    const check = checkPluginConfig({ bluetooth: { proxies: [{ name: 'host', host: 'a.local' }, HALL, { name: 'hall', host: 'b.local' }] } });
    expect(check.config?.bluetooth?.proxies).toEqual([HALL]);
    expect(check.problems).toEqual([
      expect.stringContaining('bluetooth.proxies[0].name'),
      expect.stringContaining('another proxy is already named "hall"'),
    ]);
  });

  it('ignores what the form saves for an untouched Bluetooth section: the checkbox and an empty proxy', () => {
    const check = checkPluginConfig({ bluetooth: { use_host_adapter: true, proxies: [{}] } });
    expect(check.config).toEqual({});
    expect(check.problems).toEqual([]);
  });
});
