import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { ensureBuild, runNode } from '../../support/child-process.js';

/** `npm run bench` keeps working: one short get-me run prints one well-formed JSON line. */
describe('bench/run.js', () => {
  it('measures get-me beside the baseline and prints one JSON line on stdout', async () => {
    const result = await runNode(join(ensureBuild(), 'bench', 'run.js'), ['--only', 'get-me', '--duration', '1', '--warmup', '1'], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(Object.keys(line).slice(0, 6)).toEqual(['scenario', 'ops_per_s', 'baseline_ops_per_s', 'ratio', 'p50_ms', 'p99_ms']);
    expect(line.scenario).toBe('get-me');
    for (const key of ['ops_per_s', 'baseline_ops_per_s', 'ratio', 'p50_ms', 'p99_ms']) expect(line[key]).toEqual(expect.any(Number));
    expect(line.ops_per_s).toBeGreaterThan(0);
    expect(result.stderr).toContain('[bench] get-me round 1 service');
  }, 90_000);

  it('measures command-roundtrip-nuki through the Nuki driver: the DESIGN §8 fields, data on disk, every command completed', async () => {
    const result = await runNode(join(ensureBuild(), 'bench', 'run.js'), ['--only', 'command-roundtrip-nuki', '--duration', '1', '--warmup', '1', '--rounds', '1'], {
      timeoutMs: 90_000,
    });
    expect(result.code).toBe(0);
    const line = JSON.parse(result.stdout.trim()) as Record<string, unknown>;
    expect(line.scenario).toBe('command-roundtrip-nuki');
    expect(line.p99_ms).toEqual(expect.any(Number));
    expect(line.data_in_ram).toBe(false);
    expect(line.samples).toEqual(expect.any(Number));
    expect(line.samples as number).toBeGreaterThan(0);
    // Each sample is a command the simulated Nuki confirmed (the scenario throws on a failed one).
    expect(result.stderr).toMatch(/command-roundtrip-nuki \(data in disk\): \d+ commands/);
  }, 120_000);

  it('refuses an unknown scenario', async () => {
    const result = await runNode(join(ensureBuild(), 'bench', 'run.js'), ['--only', 'no-such-scenario']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unknown scenario(s): no-such-scenario');
    expect(result.stdout).toBe('');
  });
});
