/**
 * src/config/plugin-config-validators.generated.ts is Ajv's standalone code for the TypeBox schemas of
 * src/config/plugin-config-schema.ts (scripts/config-validators.mjs): what checks a config on
 * Homebridge's main thread without loading Ajv or TypeBox there. It must be what the generator makes
 * of the schemas as they are now.
 */
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { LockConfigSchema, PluginConfigSchema } from '../../../src/config/plugin-config-schema.js';
import { validatePluginConfig, lockEntryProblems } from '../../../src/config/plugin-config.js';
import { PROJECT_ROOT, ensureBuild } from '../../support/child-process.js';

const GENERATED = join(PROJECT_ROOT, 'src', 'config', 'plugin-config-validators.generated.ts');

describe('the generated config validators', () => {
  it('are what scripts/config-validators.mjs makes of the current schemas (regenerate with `npm run config-validators`)', () => {
    const fresh = execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'config-validators.mjs'), ensureBuild(), '--print'], { encoding: 'utf8' });
    expect(readFileSync(GENERATED, 'utf8')).toBe(fresh);
  });

  it('answer as Ajv compiling the schemas at run time does, errors and all', () => {
    const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
    addFormats.default(ajv);
    const config = ajv.compile(PluginConfigSchema);
    const lock = ajv.compile(LockConfigSchema);
    const messages = (errors: typeof config.errors): string[] => (errors ?? []).map((error) => error.message ?? 'is invalid').sort();
    const configs: unknown[] = [
      { platform: 'EKeyLocks', demo: true },
      { platform: 'EKeyLocks', api: { port: 70000, public_url: 'ftp://x' }, clients: [{ client_id: 'not-a-uuid', redirect_uris: [] }] },
      { platform: 'EKeyLocks', users: [{ email: 'not an address' }], homekit: { arrival_triggers: ['a@example.com', 7] } },
      'not an object',
    ];
    for (const candidate of configs) {
      const expected = config(candidate) ? [] : messages(config.errors);
      if (candidate !== configs[0]) expect(expected.length).toBeGreaterThan(0);
      expect(validatePluginConfig(candidate).map((error) => error.message).sort()).toEqual(expected);
    }
    const locks: unknown[] = [
      { name: 'Front Door', owner_email: 'olivia@example.com', address: 'D0:E1:00:00:00:01', key: 'ab'.repeat(32) },
      { name: '', owner_email: 'nobody', family: 'acme', extra: true },
      { name: 'x'.repeat(200), owner_email: 'olivia@example.com', id: 'nope' },
    ];
    for (const candidate of locks) {
      const valid = lock(candidate);
      const problems = lockEntryProblems(candidate);
      if (!valid) expect(problems.map((problem) => problem.message).sort()).toEqual((lock.errors ?? []).map((error) => error.message ?? 'is invalid').sort());
      else expect(problems.every((problem) => !problem.message.startsWith('must '))).toBe(true);
    }
  });
});
