import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCli, runNode } from '../../support/child-process.js';
import { signInDemoUser } from '../../support/demo-process.js';
import { loginOverHttp } from '../../support/oauth-login.js';
import { startTestService } from '../../support/test-service.js';

describe('ekey-locks user add for an invited address', () => {
  let dataDir: string;
  let pendingKeyId: string;
  let ownerToken: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ekey-activation-'));
    const service = await startTestService({ dataDir });
    try {
      const lock = service.demo.locks.find((candidate) => candidate.gateway);
      if (!lock) throw new Error('demo household incomplete');
      ownerToken = (await signInDemoUser(service.baseUrl, service.demo)).access_token;
      const sent = await fetch(`${service.baseUrl}/ekey`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ email: 'Newcomer@Example.com', lock_id: lock.id, type: 'anytime' }),
      });
      expect(sent.status).toBe(201);
      const key = (await sent.json()) as { id: string; status: string };
      expect(key.status).toBe('pending');
      pendingKeyId = key.id;
    } finally {
      await service.close();
    }
  });

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('activates the invited account and accepts its pending eKeys, as the invitation link would', async () => {
    const result = await runNode(builtCli(), ['user', 'add', '--email', 'newcomer@example.com', '--name', 'New Comer', '--password-stdin', '--data', dataDir], {
      stdin: 'a long enough password\n',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ email: 'Newcomer@Example.com', name: 'New Comer', accepted_ekeys: 1 });

    const service = await startTestService({ dataDir });
    try {
      const client = service.demo.clients[0];
      if (!client) throw new Error('demo client missing');
      const newcomer = await loginOverHttp({ baseUrl: service.baseUrl, client, email: 'newcomer@example.com', password: 'a long enough password' });
      const key = await fetch(`${service.baseUrl}/ekey/${pendingKeyId}`, {
        headers: { authorization: `Bearer ${newcomer.access_token}`, accept: 'application/json' },
      });
      expect(key.status).toBe(200);
      expect(((await key.json()) as { status: string }).status).toBe('accepted');
    } finally {
      await service.close();
    }
  });

  it('refuses to activate twice: the address now belongs to an active account (exit 2)', async () => {
    const result = await runNode(builtCli(), ['user', 'add', '--email', 'newcomer@example.com', '--name', 'Again', '--password', 'another password', '--data', dataDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('already exists');
  });
});
