import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * A Raspberry-Pi-class budget for one process tree (the `pi-budget` benchmark, docs/design.md §8):
 * a control group limiting CPU time (`quotaUs` of every `periodUs`) and memory. cgroup v2 where
 * the unified hierarchy is mounted at /sys/fs/cgroup (`cpu.max`, `memory.max`), v1 otherwise
 * (`cpu.cfs_quota_us`/`cpu.cfs_period_us`, `memory.limit_in_bytes`). The new groups are children
 * of this process's own groups, so a limit from outside still applies. Needs root.
 */

export interface ConfinementLimits {
  /** CPU time per period, µs (25,000 of 100,000: a quarter of one core). */
  quotaUs: number;
  periodUs: number;
  memoryBytes: number;
}

export interface Confinement {
  version: 1 | 2;
  /** The `cgroup.procs` files a process writes its pid into to enter every group. */
  procsFiles: string[];
  /** Times the kernel's OOM killer killed a process of the group. */
  oomKills(): number;
  /** The group's highest memory use (page cache included), bytes, where the kernel tracks it. */
  peakBytes(): number | undefined;
  /** Removes the groups (call once their processes have exited). */
  remove(): void;
}

const ROOT = '/sys/fs/cgroup';

/** This process's group path per v1 controller (`memory` → `/a/b`), and the v2 path under `''`. */
function ownGroups(): Map<string, string> {
  const groups = new Map<string, string>();
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    for (const controller of (match[1] ?? '').split(',')) groups.set(controller, match[2] ?? '/');
  }
  return groups;
}

function counter(file: string, key: string): number {
  try {
    const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(readFileSync(file, 'utf8'));
    return match?.[1] === undefined ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

function numberIn(file: string): number | undefined {
  try {
    const value = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Creates the groups with `limits`; throws a sentence saying what is missing when it cannot. */
export function createConfinement(name: string, limits: ConfinementLimits): Confinement {
  const own = ownGroups();
  if (existsSync(join(ROOT, 'cgroup.controllers'))) {
    const parent = join(ROOT, own.get('') ?? '/');
    const group = join(parent, name);
    try {
      // Children get the cpu and memory controllers only when the parent hands them down.
      writeFileSync(join(parent, 'cgroup.subtree_control'), '+cpu +memory');
    } catch {
      // Already enabled, or not ours to change: mkdir + the writes below tell.
    }
    mkdirSync(group);
    writeFileSync(join(group, 'cpu.max'), `${limits.quotaUs} ${limits.periodUs}`);
    writeFileSync(join(group, 'memory.max'), String(limits.memoryBytes));
    if (existsSync(join(group, 'memory.swap.max'))) writeFileSync(join(group, 'memory.swap.max'), '0');
    return {
      version: 2,
      procsFiles: [join(group, 'cgroup.procs')],
      oomKills: () => counter(join(group, 'memory.events'), 'oom_kill'),
      peakBytes: () => numberIn(join(group, 'memory.peak')),
      remove: () => {
        rmdirSync(group);
      },
    };
  }
  const cpuRoot = ['cpu', 'cpu,cpuacct'].map((folder) => join(ROOT, folder)).find((folder) => existsSync(join(folder, 'cpu.cfs_quota_us')));
  const memoryRoot = join(ROOT, 'memory');
  if (cpuRoot === undefined || !existsSync(join(memoryRoot, 'memory.limit_in_bytes'))) {
    throw new Error('no cgroup v2 at /sys/fs/cgroup and no v1 cpu and memory controllers under it');
  }
  const cpuGroup = join(cpuRoot, own.get('cpu') ?? '/', name);
  const memoryGroup = join(memoryRoot, own.get('memory') ?? '/', name);
  mkdirSync(cpuGroup);
  try {
    mkdirSync(memoryGroup);
  } catch (error) {
    rmdirSync(cpuGroup);
    throw error;
  }
  writeFileSync(join(cpuGroup, 'cpu.cfs_period_us'), String(limits.periodUs));
  writeFileSync(join(cpuGroup, 'cpu.cfs_quota_us'), String(limits.quotaUs));
  writeFileSync(join(memoryGroup, 'memory.limit_in_bytes'), String(limits.memoryBytes));
  // No swap either (where the kernel accounts it): 512 MiB means 512 MiB.
  if (existsSync(join(memoryGroup, 'memory.memsw.limit_in_bytes'))) writeFileSync(join(memoryGroup, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes));
  return {
    version: 1,
    procsFiles: [join(cpuGroup, 'cgroup.procs'), join(memoryGroup, 'cgroup.procs')],
    oomKills: () => counter(join(memoryGroup, 'memory.oom_control'), 'oom_kill'),
    peakBytes: () => numberIn(join(memoryGroup, 'memory.max_usage_in_bytes')),
    remove: () => {
      rmdirSync(cpuGroup);
      rmdirSync(memoryGroup);
    },
  };
}
