/**
 * The README's curl walk-through, run as written (so it cannot rot): every `sh` block of its
 * "Walk-through: the API with curl" section, in order, in one bash, against a running demo whose
 * data folder is where the README reads `demo.json` from.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../../support/child-process.js';
import { startDemo, type DemoProcess } from '../../support/demo-process.js';

/** The `sh` blocks between the walk-through's heading and the next `## ` heading. */
export function walkThroughScript(readme: string): string {
  const start = readme.indexOf('## Walk-through: the API with curl');
  if (start === -1) throw new Error('README has no walk-through section');
  const end = readme.indexOf('\n## ', start + 3);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '').join('\n');
}

let folder: string;
let demo: DemoProcess;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'ekey-readme-'));
  demo = await startDemo({ dataDir: join(folder, '.homebridge', 'ekey-locks') });
}, 60_000);
afterAll(async () => {
  await demo.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('README walk-through', () => {
  it('runs as written against the demo', async () => {
    const script = walkThroughScript(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8'));
    expect(script).toContain('curl');
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const bash = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
        cwd: folder,
        env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
      });
      let stdout = '';
      let stderr = '';
      bash.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      bash.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      bash.on('close', (code) => {
        resolve({ code, stdout, stderr });
      });
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const out = run.stdout;
    const frontDoor = demo.demo.locks.find((lock) => lock.name === 'Front Door');
    const owner = demo.demo.users[0];
    if (!frontDoor || !owner) throw new Error('demo household incomplete');
    // 1. the callback with a code; 2. tokens; 3. who am I; the eKey sent, listed and revoked;
    // the command; its status; the events (the live stream then shows nothing new for 5 s).
    expect(out).toMatch(/^http:\/\/localhost:8080\/callback\?code=[^&\s]+&state=xyz/m);
    expect(out).toMatch(/"token_type":"Bearer"/);
    expect(out).toContain(JSON.stringify({ id: owner.id, name: owner.name }));
    expect(out).toMatch(/"type":"guest","status":"accepted"/);
    expect(out).toMatch(/"status":"revoked"/);
    expect(out).toContain(`"lock_id":"${frontDoor.id}","type":"lock","status":"processing"`);
    expect(out).toMatch(/"lock_events":\[/);
  }, 60_000);
});
