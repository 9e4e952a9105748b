import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PROJECT_ROOT, runNode, transpileTree } from '../../support/child-process.js';
import { call, startDemo, type DemoProcess } from '../../support/demo-process.js';
import { untilCommandFinished } from '../../support/polling.js';

/**
 * docs/architecture.md "Adding a lock family", done for real: a copy of src/ with a throw-away
 * family from a fixture folder (test/fixtures/families/acme/: descriptor, module, driver, demo
 * lock) dropped in as src/families/acme/ and one entry added to the registry — nothing else
 * changed — runs the family through the demo and the API.
 */

const FIXTURE = join(PROJECT_ROOT, 'test', 'fixtures', 'families', 'acme');

/** Every file of a tree, relative to it. */
function filesOf(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesOf(root, join(dir, entry.name)) : [relative(root, join(dir, entry.name))]));
}

describe('a new lock family: its folder and one registry entry', () => {
  // Under the project's node_modules, so the build resolves the project's dependencies.
  const work = join(PROJECT_ROOT, 'node_modules', '.cache', `ekey-locks-acme-${process.pid}`);
  const source = join(work, 'src');
  const build = join(work, 'build');
  const data = mkdtempSync(join(tmpdir(), 'ekey-acme-'));
  let demo: DemoProcess;

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    cpSync(join(PROJECT_ROOT, 'src'), source, { recursive: true });
    cpSync(FIXTURE, join(source, 'families', 'acme'), { recursive: true, filter: (path) => !path.endsWith('.md') });
    const registry = join(source, 'families', 'registry.ts');
    const before = readFileSync(registry, 'utf8');
    const after = before
      .replace("import { ekeyFamily } from './ekey/ekey-family.js';", "import { acmeFamily } from './acme/acme-family.js';\nimport { ekeyFamily } from './ekey/ekey-family.js';")
      .replace(/(export const LOCK_FAMILIES: readonly LockFamilyDescriptor\[\] = \[[^\]]*)\]/, '$1, acmeFamily]');
    // Exactly two lines differ: the family's import, and its entry in LOCK_FAMILIES.
    expect(after.split('\n').length - before.split('\n').length).toBe(1);
    expect(after).toContain(', acmeFamily];');
    writeFileSync(registry, after);
    // Nothing else in src/ is touched: the copy is src/ plus the new folder.
    const changed = filesOf(source).filter((file) => !file.startsWith(join('families', 'acme')) && readFileSync(join(source, file), 'utf8') !== readFileSync(join(PROJECT_ROOT, 'src', file), 'utf8'));
    expect(changed).toEqual([join('families', 'registry.ts')]);
    transpileTree(source, build);
    demo = await startDemo({ cli: join(build, 'cli.js'), dataDir: data });
  }, 60_000);

  afterAll(async () => {
    await demo.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  });

  it('brings its demo lock into the household, after the others, with its family', () => {
    const names = demo.demo.locks.map((lock) => lock.name);
    expect(names.slice(0, 5)).toEqual(['Front Door', 'Garden Gate', 'Back Door', 'Building Door', 'Side Door']);
    expect(demo.demo.locks.at(-1)).toMatchObject({ name: 'Cellar Door', family: 'acme', gateway: true });
  });

  it('is listed, online, to its owner; runs commands; its control lines reach the simulated lock and the service observes them', async () => {
    const cellar = demo.demo.locks.find((lock) => lock.name === 'Cellar Door');
    if (cellar === undefined) throw new Error('no Cellar Door');
    const owner = await demo.login(0);
    const api = (method: string, path: string, body?: unknown) => call(demo.demo.base_url, method, path, { token: owner.access_token, ...(body === undefined ? {} : { body }) });
    const locks = await api('GET', `/users/${cellar.owner_id}/locks`);
    expect((locks.json.locks as { id: string }[]).find((lock) => lock.id === cellar.id)).toMatchObject({
      bolt_state: 'locked',
      online_status: 'online',
      supported_commands: ['lock', 'unlock'],
    });

    const created = await api('POST', `/locks/${cellar.id}/commands`, { type: 'unlock' });
    expect(created.status).toBe(201);
    const done = await untilCommandFinished(async () => (await api('GET', `/locks/${cellar.id}/commands/${String(created.json.id)}`)).json);
    expect(done).toMatchObject({ status: 'completed' });

    // docs/design.md §6: a control line answers once the service has observed the lock.
    expect(await demo.control({ op: 'manual', lock_id: cellar.id, bolt: 'locked' })).toEqual(expect.objectContaining({ ok: true }));
    expect(await demo.control({ op: 'battery', lock_id: cellar.id, level: 0.37 })).toEqual(expect.objectContaining({ ok: true }));
    const after = await api('GET', `/users/${cellar.owner_id}/locks`);
    expect((after.json.locks as { id: string }[]).find((lock) => lock.id === cellar.id)).toMatchObject({ bolt_state: 'locked', battery_level: 0.37 });
    // What the family's demo lock does not know, it says.
    expect(await demo.control({ op: 'ring', lock_id: cellar.id })).toMatchObject({ ok: false, error: 'an Acme lock does not know "ring"' });
  }, 30_000);

  it('type-checks with the rest of src/ under the project\'s compiler options', async () => {
    const project = JSON.parse(readFileSync(join(PROJECT_ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    const config = join(work, 'tsconfig.json');
    writeFileSync(config, JSON.stringify({ compilerOptions: { ...project.compilerOptions, noEmit: true, typeRoots: [join(PROJECT_ROOT, 'node_modules', '@types')] }, include: ['src'] }));
    const checked = await runNode(join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), ['-p', config], { timeoutMs: 90_000 });
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  }, 120_000);
});
