import { describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliTestBed, PROJECT_ROOT, runNode } from '../../support/child-process.js';
import { loginOverHttp } from '../../support/oauth-login.js';

const bed = cliTestBed('ekey-cli-');

const run = (args: string[], options: { stdin?: string } = {}) => runNode(bed.cli, args, options);

describe('ekey-locks usage errors', () => {
  it.each([
    ['no command', []],
    ['an unknown command', ['frobnicate']],
    ['a bad port', ['demo', '--port', 'eighty']],
    ['user add without --name', ['user', 'add', '--email', 'a@example.com', '--password', 'longenough', '--data', '/nonexistent']],
    ['client add with a relative redirect URI', ['client', 'add', '--name', 'App', '--redirect-uri', '/cb']],
    ['serve without --config', ['serve']],
  ])('exit 2 with the usage on stderr for %s', async (_what, args) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^ekey-locks: .+/);
    expect(result.stderr).toContain('Usage: ekey-locks <command> [options]');
    expect(result.stdout).toBe('');
  });

  it('prints the usage on stdout with exit 0 for help', async () => {
    const result = await run(['help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Usage: ekey-locks <command> [options]');
  });
});

describe('ekey-locks user and client', () => {
  let client: { client_id: string; client_secret: string; redirect_uris: string[]; public: boolean };
  let alex: { id: string; email: string; name: string };

  it('user add creates a user and prints it as JSON (password from stdin)', async () => {
    const result = await run(['user', 'add', '--email', 'Alex@Example.com', '--name', 'Alex Adams', '--password-stdin', '--data', bed.dataDir], {
      stdin: 'correct horse battery\n',
    });
    expect(result.code).toBe(0);
    alex = JSON.parse(result.stdout) as typeof alex;
    expect(alex).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown, email: 'Alex@Example.com', name: 'Alex Adams' });
    expect(result.stdout).not.toContain('correct horse');
    expect(result.stderr).not.toContain('Warning');
  });

  it('user add refuses the same address in another case (exit 2)', async () => {
    const result = await run(['user', 'add', '--email', 'alex@EXAMPLE.com', '--name', 'Other', '--password', 'longenough', '--data', bed.dataDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('already exists');
  });

  it('user add refuses a short password with the field named (exit 2)', async () => {
    const result = await run(['user', 'add', '--email', 'sam@example.com', '--name', 'Sam', '--password', 'short', '--data', bed.dataDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--password must be at least 8 characters');
  });

  it('user list shows the users, tab-separated, without secrets', async () => {
    await run(['user', 'add', '--email', 'blake@example.com', '--name', 'Blake Brown', '--password', 'another secret', '--data', bed.dataDir]);
    const result = await run(['user', 'list', '--data', bed.dataDir]);
    expect(result.code).toBe(0);
    const rows = result.stdout.trim().split('\n').map((line) => line.split('\t'));
    expect(rows).toEqual([
      [alex.id, 'Alex@Example.com', 'Alex Adams', 'active'],
      [expect.any(String), 'blake@example.com', 'Blake Brown', 'active'],
    ]);
    expect(result.stdout).not.toMatch(/scrypt|secret/);
  });

  // Issue #32, finding 11: a password on the command line is visible to every local user.
  it('user add with --password works but warns that it is visible to other users, naming --password-stdin', async () => {
    const result = await run(['user', 'add', '--email', 'dana@example.com', '--name', 'Dana', '--password', 'visible password', '--data', bed.dataDir]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Warning: --password is visible to other users of this computer');
    expect(result.stderr).toContain('--password-stdin');
    expect(result.stderr).not.toContain('visible password');
  });

  it('user add and client add refuse a name that disguises itself (exit 2)', async () => {
    const user = await run(['user', 'add', '--email', 'eve@example.com', '--name', 'Ol\u200bivia Owner', '--password-stdin', '--data', bed.dataDir], { stdin: 'long enough\n' });
    expect(user.code).toBe(2);
    expect(user.stderr).toContain('--name must not contain invisible or direction-changing characters (U+200B)');
    const app = await run(['client', 'add', '--name', 'App\u202eppa', '--redirect-uri', 'https://app.example/cb', '--data', bed.dataDir]);
    expect(app.code).toBe(2);
    expect(app.stderr).toContain('--name must not contain invisible or direction-changing characters (U+202E)');
  });

  it('client add registers a confidential client and shows its secret once', async () => {
    const result = await run(['client', 'add', '--name', 'My app', '--redirect-uri', 'https://app.example/callback', '--data', bed.dataDir]);
    expect(result.code).toBe(0);
    client = JSON.parse(result.stdout) as typeof client;
    expect(client).toEqual({
      client_id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      client_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as unknown,
      redirect_uris: ['https://app.example/callback'],
      public: false,
    });
  });

  it('client add --public registers a client without a secret', async () => {
    const result = await run(['client', 'add', '--name', 'SPA', '--redirect-uri', 'http://localhost:5173/cb', '--public', '--data', bed.dataDir]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ client_secret: null, public: true });
  });

  it('serve uses what user add and client add stored: the new user signs in through the new client', async () => {
    const configFile = join(bed.dataDir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ platform: 'EKeyLocks', api: { host: '127.0.0.1' } }));
    const child = bed.spawn(['serve', '--config', configFile, '--data', bed.dataDir, '--port', '0']);
    const [, baseUrl = ''] = await child.stderrMatch(/listening on (http:\/\/\S+)/);
    const tokens = await loginOverHttp({
      baseUrl,
      client: { client_id: client.client_id, client_secret: client.client_secret, redirect_uri: 'https://app.example/callback' },
      email: 'alex@example.com',
      password: 'correct horse battery',
    });
    const me = await fetch(`${baseUrl}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await me.json()).toEqual({ id: alex.id, name: 'Alex Adams' });
    child.kill('SIGTERM');
    expect(await child.exited).toEqual({ code: 0, signal: null });
  });
});

describe('ekey-locks serve --config', () => {
  it('exits 2 and names every invalid field', async () => {
    const configFile = join(bed.dataDir, 'bad-config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        api: { port: 99999 },
        locks: [{ name: 'Front Door', owner_email: 'not-an-address', key: 'short' }],
        clients: [{ client_id: 'nope', redirect_uris: [] }],
      }),
    );
    const result = await run(['serve', '--config', configFile, '--data', bed.dataDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Config file ${configFile} is invalid:`);
    for (const field of ['/api/port', '/clients/0/client_id', '/clients/0/redirect_uris']) {
      expect(result.stderr).toMatch(new RegExp(`^  ${field}: .+$`, 'm'));
    }
    // The lock entry on one line naming each field at fault (docs/design.md §9).
    const lockLine = result.stderr.split('\n').find((line) => line.startsWith('  Lock "Front Door" (locks[0]) is left out: '));
    expect(lockLine).toMatch(/ owner_email: .+[;.]/);
    expect(lockLine).toMatch(/ key: .+[;.]/);
  });

  it('exits 2 for a config file that is not JSON', async () => {
    const configFile = join(bed.dataDir, 'broken.json');
    writeFileSync(configFile, '{ "api": ');
    const result = await run(['serve', '--config', configFile]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Cannot read config file ${configFile}`);
  });
});

describe('ekey-locks openapi', () => {
  it('prints the committed docs/openapi.json', async () => {
    const result = await run(['openapi']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(readFileSync(join(PROJECT_ROOT, 'docs', 'openapi.json'), 'utf8')));
  });
});
