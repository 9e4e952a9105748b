import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseOptions, parsePort } from '../../../src/cli/parse-options.js';
import { readConfigFile } from '../../../src/cli/serve-command.js';
import { USAGE, UsageError } from '../../../src/cli/usage-error.js';
import { silentLogger } from '../../../src/logger.js';

describe('parseOptions', () => {
  const spec = { name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true }, public: { type: 'boolean' } } as const;

  it('reads strings, repeated options and flags', () => {
    expect(parseOptions(['--name', 'App', '--redirect-uri', 'https://a/cb', '--redirect-uri', 'https://b/cb', '--public'], spec)).toEqual({
      name: 'App',
      'redirect-uri': ['https://a/cb', 'https://b/cb'],
      public: true,
    });
  });

  it.each([
    ['an unknown flag', ['--nmae', 'App']],
    ['a stray word', ['App']],
    ['a string option without its value', ['--name']],
  ])('turns %s into a UsageError', (_what, args) => {
    expect(() => parseOptions(args, spec)).toThrow(UsageError);
  });
});

describe('parsePort', () => {
  it.each([
    [undefined, undefined],
    ['0', 0],
    ['8787', 8787],
    ['65535', 65535],
  ])('reads %p as %p', (text, port) => {
    expect(parsePort(text)).toBe(port);
  });

  it.each(['65536', '-1', '80.5', 'http', '', ' 80', '0x50'])('refuses %p', (text) => {
    expect(() => parsePort(text)).toThrow(UsageError);
  });
});

describe('readConfigFile', () => {
  const withFile = (content: string, check: (file: string) => void): void => {
    const dir = mkdtempSync(join(tmpdir(), 'ekey-config-'));
    try {
      const file = join(dir, 'config.json');
      writeFileSync(file, content);
      check(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('returns a valid config', () => {
    withFile(JSON.stringify({ platform: 'EKeyLocks', api: { port: 8080 }, _bridge: { username: 'x' } }), (file) => {
      expect(readConfigFile(file)).toMatchObject({ platform: 'EKeyLocks', api: { port: 8080 } });
    });
  });

  it('lists every field at fault outside the lock entries, and each lock entry on one line', () => {
    withFile(JSON.stringify({ api: { port: 70000, colour: 'red' }, locks: [{ name: '', gateway: true }, { name: 'Gate' }] }), (file) => {
      let message = '';
      try {
        readConfigFile(file);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        message = (error as Error).message;
      }
      expect(message.split('\n')).toEqual([
        `Config file ${file} is invalid:`,
        '  /api/colour: is not a setting here',
        '  /api/port: must be at most 65535',
        '  Lock "Gate" (locks[1]) is left out: owner_email: is missing. The other locks run.',
      ]);
    });
  });

  it('runs a file the Homebridge UI saved untouched, saying which empty entries it ignored', () => {
    withFile(JSON.stringify({ demo: true, locks: [{ gateway: true, keypad: false }], clients: [{ public: false }], smtp: { secure: false } }), (file) => {
      const lines: string[] = [];
      const logger = { ...silentLogger, error: (line: string) => lines.push(`error ${line}`), info: (line: string) => lines.push(`info ${line}`) };
      expect(readConfigFile(file, logger)).toEqual({ demo: true, locks: [], clients: [] });
      expect(lines).toEqual([
        'info Locks: entry 1 (locks[0]) has nothing filled in — the settings form adds an empty entry to every list — so it is ignored.',
        'info OAuth clients: entry 1 (clients[0]) has nothing filled in — the settings form adds an empty entry to every list — so it is ignored.',
      ]);
    });
  });

  it('refuses a file that is not a JSON object', () => {
    withFile('[1, 2]', (file) => {
      expect(() => readConfigFile(file)).toThrow(new RegExp(`Config file ${file} is invalid:\n  /: must be object`));
    });
  });

  it('leaves out a lock entry that cannot run, with one line naming the lock and the field, and keeps the rest', () => {
    const good = { name: 'Front Door', address: 'D0:E1:00:00:00:01', key: 'a'.repeat(64), owner_email: 'o@example.com' };
    withFile(JSON.stringify({ locks: [good, { ...good, name: 'Back Door', address: 'D0:E1:00:00:00:02', time_zone: 'Atlantis/Capital' }] }), (file) => {
      const lines: string[] = [];
      const logger = { ...silentLogger, error: (line: string) => lines.push(line) };
      expect(readConfigFile(file, logger).locks).toEqual([good]);
      expect(lines).toEqual(['Lock "Back Door" (locks[1]) is left out: time_zone: "Atlantis/Capital" is not an IANA time zone (e.g. "Europe/Berlin"). The other locks run.']);
    });
  });

  it('reports unreadable JSON as a usage error', () => {
    withFile('{ not json', (file) => {
      expect(() => readConfigFile(file)).toThrow(/Cannot read config file/);
    });
    expect(() => readConfigFile('/nonexistent/ekey/config.json')).toThrow(UsageError);
  });
});

describe('USAGE', () => {
  it('names every command', () => {
    for (const command of ['serve', 'demo', 'user add', 'user list', 'client add', 'openapi', 'help']) expect(USAGE).toContain(command);
  });
});
