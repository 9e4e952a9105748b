import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuild } from '../../support/child-process.js';

/*
 * The SQLite driver on the Node that runs the tests (src/store/sqlite-driver.ts,
 * docs/decisions/runtimes.md). better-sqlite3 12 on Node 24.19+ aborted the process (exit 134,
 * `RemoveEnvironmentCleanupHook … (env) != nullptr`) when the garbage collector deleted statements
 * that became garbage around an await of native work — what the demo does while it seeds. A child
 * process does exactly that with the driver the service loads, and must finish cleanly. On a Node
 * older than 22, where 13's binary crashes at the first query, the module refuses with one sentence.
 */

const CHURN = `
import { scrypt } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
const { default: Database, SQLITE_DRIVER } = await import(process.env.DRIVER_URL);
const hash = promisify(scrypt);
const db = new Database(join(process.env.DATA_DIR, 'churn.sqlite'));
db.exec('CREATE TABLE t (n INTEGER)');
for (let round = 0; round < 20; round++) {
  for (let i = 0; i < 2000; i++) db.pragma('user_version', { simple: true });
  db.prepare('INSERT INTO t (n) VALUES (?)').run(round);
  await hash('password ' + round, 'salt', 32, { N: 16384, r: 8, p: 1 });
  const garbage = [];
  for (let i = 0; i < 20000; i++) garbage.push({ i, text: 'x' + i });
  const scratch = new Database(join(process.env.DATA_DIR, 'scratch-' + round + '.sqlite'));
  scratch.prepare('SELECT 1').get();
  if (round % 2 === 0) scratch.close();
}
const rows = db.prepare('SELECT count(*) AS n FROM t').get().n;
db.close();
const version = createRequire(process.env.DRIVER_URL)(SQLITE_DRIVER + '/package.json').version;
console.log(JSON.stringify({ driver: SQLITE_DRIVER, version, rows }));
`;

describe('the SQLite driver of this Node', () => {
  it('is better-sqlite3 13, and survives statements and databases collected around awaited native work', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ekey-sqlite-driver-'));
    try {
      const driverUrl = pathToFileURL(join(ensureBuild(), 'store', 'sqlite-driver.js')).href;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', CHURN], {
        env: { ...process.env, DRIVER_URL: driverUrl, DATA_DIR: dataDir },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect({ status: run.status, signal: run.signal, stderr: run.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
      const report = JSON.parse(run.stdout.trim()) as { driver: string; version: string; rows: number };
      expect(report).toMatchObject({ rows: 20, driver: 'better-sqlite3', version: expect.stringMatching(/^13\./) as unknown });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 150_000);

  it('refuses a Node older than 22 with one sentence, before the driver can crash', () => {
    const driverUrl = pathToFileURL(join(ensureBuild(), 'store', 'sqlite-driver.js')).href;
    const pretend = "data:text/javascript,Object.defineProperty(process.versions,'node',{value:'20.18.1'})";
    const run = spawnSync(process.execPath, ['--import', pretend, '--input-type=module', '-e', `try { await import(${JSON.stringify(driverUrl)}); } catch (error) { console.log(error.message); }`], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect({ status: run.status, stdout: run.stdout }).toEqual({
      status: 0,
      stdout: `homebridge-ekey-locks needs Node.js 22 or 24; this is Node.js v20.18.1. Update Node.js, then install the plugin again.\n`,
    });
  });
});
