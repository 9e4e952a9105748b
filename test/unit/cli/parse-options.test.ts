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

  it('lists every invalid field', () => {
    withFile(JSON.stringify({ api: { port: 70000, colour: 'red' }, locks: [{ name: '' }] }), (file) => {
      let message = '';
      try {
        readConfigFile(file);
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError);
        message = (error as Error).message;
      }
      expect(message).toContain(`Config file ${file} is invalid:`);
      expect(message).toMatch(/\/api\/port: must be <= 65535/);
      expect(message).toMatch(/\/api\/colour: /);
      // The lock entry is named in the same report, on one line (docs/design.md §9).
      const lockLine = message.split('\n').find((line) => line.startsWith('  Lock #1 (locks[0]) is left out: '));
      expect(lockLine).toMatch(/ name: must NOT have fewer than 1 characters[;.]/);
      expect(lockLine).toMatch(/ owner_email: must have required property 'owner_email'[;.]/);
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
