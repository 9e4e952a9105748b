/**
 * What package.json promises the Homebridge UI and npm (docs/design.md §7, §10): the plugin card
 * shows `author`, `homepage`, `bugs` and `repository`; `engines` says exactly the supported runtimes.
 */
import { describe, expect, it } from '@jest/globals';
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

  it('states the supported runtimes: Node 20.18+, 22 and 24; Homebridge 1.8+ and 2', () => {
    expect(manifest.engines).toEqual({ node: '^20.18.0 || ^22.0.0 || ^24.0.0', homebridge: '^1.8.0 || ^2.0.0' });
  });
});
