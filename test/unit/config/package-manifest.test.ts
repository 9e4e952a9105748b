/**
 * What package.json promises the Homebridge UI and npm (docs/design.md §7, §10): the plugin card
 * shows `author`, `homepage`, `bugs` and `repository`; `engines` says exactly the supported runtimes,
 * and an install on an older Node stops at `preinstall` with one clear sentence.
 */
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const PROJECT_ROOT = join(import.meta.dirname, '..', '..', '..');
const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;

describe('package.json', () => {
  it('names its author and where the project, its source and its issues live (the plugin card shows them)', () => {
    expect(typeof manifest.author).toBe('string');
    expect(String(manifest.author).trim()).not.toBe('');
    expect(new URL(String(manifest.homepage)).protocol).toBe('https:');
    expect(manifest.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/.+\.git$/) });
    expect(new URL((manifest.bugs as { url: string }).url).protocol).toBe('https:');
  });

  it('states the supported runtimes: Node 22 and 24; Homebridge 1.8+ and 2', () => {
    expect(manifest.engines).toEqual({ node: '^22.0.0 || ^24.0.0', homebridge: '^1.8.0 || ^2.0.0' });
  });

  it('has one SQLite driver, better-sqlite3 13, and no other (docs/decisions/runtimes.md)', () => {
    expect(manifest.dependencies).toMatchObject({ 'better-sqlite3': expect.stringMatching(/^\^13\./) as unknown });
    expect(manifest).not.toHaveProperty('optionalDependencies');
    expect(JSON.stringify(manifest)).not.toContain('better-sqlite3-node20');
  });
});

describe('an install on an unsupported Node (scripts/node-version-check.mjs, run as preinstall)', () => {
  const script = join(PROJECT_ROOT, 'scripts', 'node-version-check.mjs');
  /** Runs the preinstall command as npm would, on this Node made to say it is `version`. */
  const preinstallOn = (version: string): { status: number | null; stderr: string } => {
    const pretend = `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'${version}'})`;
    const run = spawnSync(process.execPath, ['--import', pretend, script], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    return { status: run.status, stderr: run.stderr };
  };

  it('is the package\'s preinstall script, and ships with it', () => {
    expect((manifest.scripts as Record<string, string>).preinstall).toBe('node scripts/node-version-check.mjs');
    expect(manifest.files).toContain('scripts/node-version-check.mjs');
  });

  it('refuses Node 20 with one sentence that says why and what to do', () => {
    expect(preinstallOn('20.18.1')).toEqual({
      status: 1,
      stderr:
        'homebridge-ekey-locks needs Node.js 22 or 24; this is Node.js v20.18.1, which reached its end of life on 30 April 2026. ' +
        'Update Node.js (https://github.com/homebridge/homebridge/wiki/How-To-Update-Node.js), then install the plugin again.\n',
    });
    expect(preinstallOn('18.20.4')).toMatchObject({ status: 1, stderr: expect.stringContaining('this is Node.js v18.20.4, which is no longer maintained') as unknown });
  });

  it('lets Node 22 and 24 install quietly', () => {
    expect(preinstallOn('22.12.0')).toEqual({ status: 0, stderr: '' });
    expect(preinstallOn('24.0.0')).toEqual({ status: 0, stderr: '' });
  });
});
