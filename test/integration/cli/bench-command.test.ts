import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { ensureBuild, runNode } from '../../support/child-process.js';

/**
 * `npm run bench` keeps working and prints the docs/design.md §8 line shapes. Only cheap scenarios run here,
 * with the shortest durations; no timing is ever asserted (the machine may be busy).
 */
const bench = (args: string[], timeoutMs = 60_000) => runNode(join(ensureBuild(), 'bench', 'run.js'), args, { timeoutMs });
const short = ['--duration', '1', '--warmup', '1'];

describe('bench/run.js', () => {
  it('lists every docs/design.md §8 scenario, in the order it runs them', async () => {
    const result = await bench(['--list']);
    expect(result.code).toBe(0);
    const names = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('\t')[0]);
    expect(names).toEqual(['get-me', 'events-page', 'event-ingest', 'command-roundtrip', 'command-roundtrip-nuki', 'command-roundtrip-proxy', 'homekit-set', 'loop-delay', 'footprint', 'pi-budget', 'door-code-sync', 'event-fanout']);
  });

  it('measures get-me beside the baseline in paired rounds and prints one JSON line on stdout', async () => {
    const result = await bench(['--only', 'get-me', ...short, '--rounds', '2']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(Object.keys(line).slice(0, 6)).toEqual(['scenario', 'ops_per_s', 'baseline_ops_per_s', 'ratio', 'p50_ms', 'p99_ms']);
    expect(line.scenario).toBe('get-me');
    for (const key of ['ops_per_s', 'baseline_ops_per_s', 'ratio', 'p50_ms', 'p99_ms', 'target_ratio']) expect(line[key]).toEqual(expect.any(Number));
    expect(line.ok).toEqual(expect.any(Boolean));
    // The ratio is the median of the paired rounds' ratios (of two: their mean).
    const rounds = line.round_ratios as number[];
    expect(rounds).toHaveLength(2);
    expect(line.ratio).toBeCloseTo(((rounds[0] ?? 0) + (rounds[1] ?? 0)) / 2, 2);
    expect(result.stderr).toContain('[bench] get-me round 1 service');
    expect(result.stderr).toContain('[bench] get-me round 2 baseline');
  }, 90_000);

  it('measures event-ingest through the lock runtime on disk: ops_per_s beside raw SQLite, every record stored', async () => {
    const result = await bench(['--only', 'event-ingest', ...short, '--rounds', '1']);
    expect(result.code).toBe(0);
    const line = JSON.parse(result.stdout.trim()) as Record<string, unknown>;
    expect(line.scenario).toBe('event-ingest');
    for (const key of ['ops_per_s', 'baseline_ops_per_s', 'ratio', 'p99_ms', 'target_ops_per_s']) expect(line[key]).toEqual(expect.any(Number));
    expect(line.ops_per_s as number).toBeGreaterThan(0);
    expect(line.data_in_ram).toBe(false);
    expect(line.locks).toBe(8);
    // The runtime's group commit: the 8 locks' records of one turn share a transaction.
    expect(line.events_per_transaction as number).toBeGreaterThan(1);
    expect(line.ok).toEqual(expect.any(Boolean));
    expect(result.stderr).toMatch(/event-ingest round 1: runtime path \d+ events\/s/);
  }, 90_000);

  it('measures door-code-sync on the simulated Nuki with a keypad: the docs/design.md §8 fields, every code set and removed', async () => {
    const result = await bench(['--only', 'door-code-sync', ...short, '--rounds', '1'], 90_000);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(line.scenario).toBe('door-code-sync');
    for (const key of ['p50_ms', 'p99_ms', 'remove_p50_ms', 'remove_p99_ms', 'set_roundtrip_p99_ms', 'remove_roundtrip_p99_ms', 'baseline_p50_ms', 'samples', 'target_p99_ms']) {
      expect(line[key]).toEqual(expect.any(Number));
    }
    expect(line.target_p99_ms).toBe(50);
    expect(line.samples as number).toBeGreaterThan(0);
    expect(line.polls_per_key as number).toBeGreaterThanOrEqual(2);
    expect(line.data_in_ram).toBe(false);
    expect(line.ok).toEqual(expect.any(Boolean));
    expect(result.stderr).toMatch(/door-code-sync: \d+ keys; POST → set p99 [\d.]+ ms, revoke → removed p99 [\d.]+ ms/);
  }, 120_000);

  it('measures event-fanout on a loopback Mosquitto and a loopback receiver: the docs/design.md §8 fields, every event both ways', async () => {
    const result = await bench(['--only', 'event-fanout', ...short, '--rounds', '1'], 90_000);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(Object.keys(line).slice(0, 3)).toEqual(['scenario', 'mqtt_p99_ms', 'webhook_p99_ms']);
    expect(line.scenario).toBe('event-fanout');
    for (const key of ['mqtt_p99_ms', 'webhook_p99_ms', 'mqtt_p50_ms', 'webhook_p50_ms', 'events_per_s']) expect(line[key]).toEqual(expect.any(Number));
    expect(line.mqtt_samples as number).toBeGreaterThan(0);
    // Every event reached both: one MQTT message and one POST each.
    expect(line.webhook_samples).toBe(line.mqtt_samples);
    expect(line).toMatchObject({ target_mqtt_p99_ms: 50, target_webhook_p99_ms: 100, data_in_ram: false, ok: expect.any(Boolean) });
    expect(result.stderr).toMatch(/event-fanout: \d+ taps in [\d.]+ s; \d+ MQTT messages \(p99 [\d.]+ ms\), \d+ webhook POSTs/);
  }, 120_000);

  it('measures command-roundtrip-nuki through the Nuki driver: the docs/design.md §8 fields, data on disk, every command completed', async () => {
    const result = await bench(['--only', 'command-roundtrip-nuki', ...short, '--rounds', '1'], 90_000);
    expect(result.code).toBe(0);
    const line = JSON.parse(result.stdout.trim()) as Record<string, unknown>;
    expect(line.scenario).toBe('command-roundtrip-nuki');
    expect(line.p99_ms).toEqual(expect.any(Number));
    expect(line.data_in_ram).toBe(false);
    expect(line.samples).toEqual(expect.any(Number));
    expect(line.samples as number).toBeGreaterThan(0);
    expect(line.target_p99_ms).toBe(5);
    // Each sample is a command the simulated Nuki confirmed (the scenario throws on a failed one).
    expect(result.stderr).toMatch(/command-roundtrip-nuki \(data in disk\): \d+ commands/);
  }, 120_000);

  it('measures command-roundtrip-proxy through the ESPHome transport and a fake proxy with Noise: the docs/design.md §8 fields, every command completed', async () => {
    const result = await bench(['--only', 'command-roundtrip-proxy', ...short, '--rounds', '1'], 90_000);
    expect(result.code).toBe(0);
    const line = JSON.parse(result.stdout.trim()) as Record<string, unknown>;
    expect(line.scenario).toBe('command-roundtrip-proxy');
    expect(line.p99_ms).toEqual(expect.any(Number));
    expect(line.data_in_ram).toBe(false);
    expect(line.samples as number).toBeGreaterThan(0);
    expect(line.target_p99_ms).toBe(5);
    expect(result.stderr).toMatch(/command-roundtrip-proxy \(data in disk\): \d+ commands/);
  }, 120_000);

  it('refuses an unknown scenario', async () => {
    const result = await bench(['--only', 'no-such-scenario']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unknown scenario(s): no-such-scenario');
    expect(result.stdout).toBe('');
  });
});
