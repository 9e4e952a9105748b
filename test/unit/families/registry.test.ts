import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lockEntryProblems } from '../../../src/config/plugin-config.js';
import { LOCK_FAMILIES, LOCK_FAMILY_IDS, capabilitiesOf, familyDescriptor, familyModule, isLockFamilyId, loadFamilyModules } from '../../../src/families/registry.js';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('the lock family registry (src/families/registry.ts)', () => {
  it('lists each family once, each with its folder and its descriptor there', () => {
    expect(new Set(LOCK_FAMILY_IDS).size).toBe(LOCK_FAMILIES.length);
    for (const id of LOCK_FAMILY_IDS) {
      expect(existsSync(join(SRC, 'families', id, `${id}-family.ts`))).toBe(true);
      expect(familyDescriptor(id)?.id).toBe(id);
    }
    expect(isLockFamilyId('acme')).toBe(false);
    expect(familyDescriptor('acme')).toBeUndefined();
  });

  it('loads each family\'s heavy part on request only, once', async () => {
    await loadFamilyModules(['ekey', 'acme']);
    expect(familyModule('ekey')).toBeDefined();
    expect(familyModule('acme')).toBeUndefined();
    const ekey = familyModule('ekey');
    await loadFamilyModules();
    expect(familyModule('ekey')).toBe(ekey);
    for (const id of LOCK_FAMILY_IDS) expect(typeof familyModule(id)?.driverFactory).toBe('function');
  });

  it('keeps nothing of a family outside its folder: shared code imports only the registry and the contracts', () => {
    const contracts = ['registry.ts', 'lock-family.ts', 'lock-family-module.ts', 'pairing-errors.ts'].map((name) => join('families', name));
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const path = relative(SRC, file);
      // Families use each other as they like; migrations that shipped and the benchmarks' data stay as
      // they are; the generated validators are the registry's families compiled (scripts/config-files.mjs).
      if (path.startsWith('families') || path.startsWith(join('store', 'migrations')) || path.startsWith('bench') || path.endsWith('.generated.ts')) continue;
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/from '((?:\.\.?\/)+)(families\/[^']+)\.js'/g)) {
        const target = relative(SRC, join(file, '..', match[1] ?? '', match[2] ?? ''));
        if (!contracts.includes(`${target}.ts`)) offenders.push(`${path}: imports ${target}`);
      }
      for (const id of LOCK_FAMILY_IDS) if (new RegExp(`['"\`]${id}['"\`]`).test(text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, ''))) offenders.push(`${path}: names the family "${id}"`);
    }
    expect(offenders).toEqual([]);
  });

  it('is the only place shared code tells families apart: no comparison with a family id outside its folder, no SQL list of them', () => {
    const ids = LOCK_FAMILY_IDS.join('|');
    const comparison = new RegExp(`family\\s*(===|!==|==|!=)\\s*['"](${ids})['"]|['"](${ids})['"]\\s*(===|!==|==|!=)\\s*[\\w.?]*family\\b`);
    const sqlList = new RegExp(`IN\\s*\\(\\s*'(${ids})'`);
    const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const path = relative(SRC, file);
      const text = withoutComments(readFileSync(file, 'utf8'));
      const ownFamily = LOCK_FAMILY_IDS.find((id) => path.startsWith(join('families', id)));
      // Migrations that shipped stay as they were; migration 7 removed their CHECK.
      if (path.startsWith(join('store', 'migrations', '005-'))) continue;
      if (ownFamily === undefined && comparison.test(text)) offenders.push(`${path}: compares with a family id`);
      if (sqlList.test(text)) offenders.push(`${path}: lists family ids in SQL`);
    }
    expect(offenders).toEqual([]);
  });

  it('decides which config entries are valid, family by family', () => {
    const base = { name: 'Door', owner_email: 'olivia@example.com', address: 'AA:BB:CC:DD:EE:01' };
    expect(lockEntryProblems({ ...base, family: 'acme' }).map((problem) => problem.field)).toContain('/family');
    for (const family of LOCK_FAMILIES) {
      const entry = { ...base, family: family.id, key: 'a'.repeat(64) };
      expect(lockEntryProblems(entry)).toEqual(family.configProblems(entry));
    }
    expect(lockEntryProblems({ ...base, family: 'nuki' })).toEqual([]);
    expect(lockEntryProblems({ ...base, family: 'nuki', key: 'a'.repeat(64) })).toEqual([{ field: '/key', message: expect.stringContaining('not used by a Nuki lock') }]);
    expect(lockEntryProblems({ ...base })).toEqual([{ field: '/key', message: expect.stringContaining('is required') }]);
    // Another family's own setting is not one of this family's.
    expect(lockEntryProblems({ ...base, key: 'a'.repeat(64), nuki_users: { "Olivia's iPhone": 'olivia@example.com' } })).toEqual([
      { field: '/nuki_users', message: 'is not used by a eKey open profile' },
    ]);
  });

  it('knows the Nuki Opener as its own family: paired, not keyed; an address; no keypad (docs/design.md §4d)', () => {
    const base = { name: 'Building Door', owner_email: 'olivia@example.com', family: 'nuki-opener' };
    expect(isLockFamilyId('nuki-opener')).toBe(true);
    expect(lockEntryProblems({ ...base, address: 'AA:BB:CC:DD:EE:02' })).toEqual([]);
    expect(lockEntryProblems({ ...base, address: 'AA:BB:CC:DD:EE:02', key: 'a'.repeat(64) })).toEqual([
      { field: '/key', message: expect.stringContaining('not used by a Nuki Opener') },
    ]);
    expect(lockEntryProblems(base)).toEqual([{ field: '/address', message: expect.stringContaining('is required for a Nuki Opener') }]);
    expect(lockEntryProblems({ ...base, address: 'AA:BB:CC:DD:EE:02', keypad: true })).toEqual([{ field: '/keypad', message: expect.stringContaining('only for a Nuki Smart Lock') }]);
    expect(lockEntryProblems({ ...base, address: 'AA:BB:CC:DD:EE:02', nuki_users: { "Olivia's iPhone": 'olivia@example.com' } })).toEqual([]);
    expect(capabilitiesOf('nuki-opener')).toEqual({ keypad: false, doorSensor: false, opener: true, ownUsers: true });
  });

  it('builds the Opener a Nuki driver that speaks to its keyturner service and says why an unpaired one stays offline', async () => {
    await loadFamilyModules(['nuki-opener']);
    const lock = { id: 'x', name: 'Building Door', family: 'nuki-opener', bleAddress: 'AA:BB:CC:DD:EE:02' } as Parameters<ReturnType<NonNullable<ReturnType<typeof familyModule>>['driverFactory']>>[0];
    const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    const opener = familyModule('nuki-opener');
    const unpaired = opener?.driverFactory({ dataDir: undefined, logger })(lock);
    expect(unpaired?.family).toBe('nuki-opener');
    expect(unpaired?.unusableReason).toContain('Nuki Opener is not paired yet');
    const paired = opener?.driverFactory({
      dataDir: undefined,
      logger,
      demoSecrets: () => ({ id: 'x', address: 'AA:BB:CC:DD:EE:02', nuki: { sharedKey: '01'.repeat(32), authorizationId: 2, appId: 3, securityPin: 1234, nukiId: 5 } }),
    })(lock);
    expect(paired?.family).toBe('nuki-opener');
    expect(paired?.unusableReason).toBeNull();
    expect(JSON.stringify(paired?.profile)).toContain('a92ae202');
  });
});
