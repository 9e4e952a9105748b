import { afterAll, describe, expect, it } from '@jest/globals';
import { fork, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuild, PROJECT_ROOT } from '../../support/child-process.js';

/**
 * The real homebridge-ui/server.js as the Homebridge UI runs it: forked with an IPC channel and
 * HOMEBRIDGE_STORAGE_PATH, spoken to with the UI's `request` messages. It must always say
 * `ready` and answer, even when its compiled code is missing.
 */

const staged: string[] = [];
const children: ChildProcess[] = [];

/** The package under node_modules/.cache (so dependencies resolve), with or without its dist. */
function stage(withDist: boolean): string {
  const root = join(PROJECT_ROOT, 'node_modules', '.cache', 'ekey-locks-settings-ui', randomUUID());
  mkdirSync(root, { recursive: true });
  staged.push(root);
  if (withDist) symlinkSync(ensureBuild(), join(root, 'dist'), 'dir');
  cpSync(join(PROJECT_ROOT, 'homebridge-ui'), join(root, 'homebridge-ui'), { recursive: true });
  return join(root, 'homebridge-ui', 'server.js');
}

interface Response {
  requestId: string;
  success: boolean;
  data: { state?: string; message?: string; error?: unknown };
}

async function start(serverJs: string, storagePath: string): Promise<{ request: (path: string, body?: unknown) => Promise<Response> }> {
  const child = fork(serverJs, [], { env: { ...process.env, HOMEBRIDGE_STORAGE_PATH: storagePath }, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error('server.js never said ready')); }, 15_000);
    child.on('message', (message: { action?: string }) => {
      if (message.action === 'ready') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const request = (path: string, body: unknown = {}): Promise<Response> =>
    new Promise((resolve) => {
      const requestId = randomUUID();
      const listener = (message: { action?: string; payload?: Response }): void => {
        if (message.action === 'response' && message.payload?.requestId === requestId) {
          child.off('message', listener);
          resolve(message.payload);
        }
      };
      child.on('message', listener);
      child.send({ action: 'request', requestId, path, body });
    });
  return { request };
}

afterAll(() => {
  for (const child of children) child.kill();
  for (const path of staged) rmSync(path, { recursive: true, force: true });
});

describe('homebridge-ui/server.js', () => {
  const storage = mkdtempSync(join(tmpdir(), 'ekey-settings-server-'));
  staged.push(storage);

  it('says ready and answers every route with a state or a message', async () => {
    const server = await start(stage(true), storage);
    expect(await server.request('/status')).toMatchObject({ success: true, data: { state: 'stopped', message: expect.stringMatching(/^The eKey Locks service is not running/) } });
    expect(await server.request('/owner', { email: 'a@example.com', name: 'A', password: 'long enough' })).toMatchObject({
      success: false,
      data: { message: expect.stringMatching(/^The eKey Locks service is not running/), error: { reason: 'settings_ui' } },
    });
    expect(await server.request('/pair', { family: 'nuki', address: 'nope' })).toMatchObject({ success: false, data: { message: expect.stringMatching(/^Choose a lock to pair/) } });
  }, 30_000);

  it('still says ready, and why nothing works, when its compiled code is missing', async () => {
    const server = await start(stage(false), storage);
    expect(await server.request('/status')).toMatchObject({ success: true, data: { state: 'unreadable', message: expect.stringMatching(/^The settings page could not start \(.+\)\. Reinstall the plugin\.$/) } });
    expect(await server.request('/scan', { family: 'nuki', seconds: 1 })).toMatchObject({ success: false, data: { message: expect.stringMatching(/^The settings page could not start/) } });
  }, 30_000);
});
