/**
 * Links that reach (docs/design.md §7): every URL the service prints, mails or redirects to works
 * from the device that receives it. The service runs in a private network namespace: first with a
 * home-network address (a veth pair to a second namespace, the "phone", which follows the links);
 * then with loopback only, where it says in one line what to do.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCli, PROJECT_ROOT, spawnNode, type RunningChild } from '../../support/child-process.js';
import type { DemoLine } from '../../support/demo-process.js';
import { homeNetwork, HOST_ADDRESS, Namespace } from '../../support/private-network.js';

const LAN_CLIENT = join(PROJECT_ROOT, 'test', 'support', 'lan-client.mjs');
const STARTUP_MS = 30_000;

let dataDir: string;
const children: RunningChild[] = [];
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ekey-links-'));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the LAN client in `namespace` and returns its JSON answer. */
async function lanClient(namespace: Namespace, ...args: string[]): Promise<Record<string, unknown>> {
  const child = spawnNode(LAN_CLIENT, args, { wrapper: namespace.wrapper });
  children.push(child);
  const line = await child.nextLine(undefined, 20_000);
  return JSON.parse(line) as Record<string, unknown>;
}

describe('a host on the home network', () => {
  let network: Awaited<ReturnType<typeof homeNetwork>>;
  beforeAll(async () => {
    network = await homeNetwork();
  });
  afterAll(() => {
    network.close();
  });

  it('prints, writes and mails links with its home-network address; the phone follows them', async () => {
    const data = join(dataDir, 'lan-demo');
    const demo = spawnNode(builtCli(), ['demo', '--host', '0.0.0.0', '--port', '8787', '--data', data], { wrapper: network.host.wrapper });
    children.push(demo);
    const info = JSON.parse(await demo.nextLine(undefined, STARTUP_MS)) as DemoLine;
    const base = `http://${HOST_ADDRESS}:8787`;
    expect(info.base_url).toBe(base);
    await demo.stderrMatch(/Web app: /);
    expect(demo.stderr()).toContain(`eKey access service listening on ${base} (on this machine also http://127.0.0.1:8787)`);
    expect(demo.stderr()).toContain(`Web app: ${base}/app/`);
    // The same JSON as a file in the data folder (the README's walk-through reads it).
    expect(JSON.parse(readFileSync(join(data, 'demo.json'), 'utf8'))).toEqual(info);

    // The owner, on the phone, sends a key to someone without an account: an invitation.
    const owner = info.users[0];
    const client = info.clients[0];
    const frontDoor = info.locks.find((lock) => lock.name === 'Front Door');
    if (!owner || !client || !frontDoor) throw new Error('demo household incomplete');
    const sent = await lanClient(
      network.phone,
      'send-ekey',
      JSON.stringify({ base_url: info.base_url, client, email: owner.email, password: owner.password, lock_id: frontDoor.id, to: 'first.minute@example.org' }),
    );
    expect(sent).toMatchObject({ status: 201, body: { status: 'pending' } });

    // The invitation (logged, no SMTP here) links to the home-network address, and opens on the phone.
    const [, link = ''] = await demo.stderrMatch(/(http:\/\/\S+\/invitations\/[A-Za-z0-9_-]+)/);
    expect(link.startsWith(`${base}/invitations/`)).toBe(true);
    const page = await lanClient(network.phone, 'get', link);
    expect(page).toMatchObject({ status: 200, content_type: expect.stringMatching(/^text\/html/) as unknown });
    expect(page.body).toContain('first.minute@example.org');
    // So does the web app the log names.
    expect(await lanClient(network.phone, 'get', `${base}/app/`)).toMatchObject({ status: 200 });
  }, 90_000);
});

describe('a host with loopback only', () => {
  it('prints the loopback URL with one line that says what to do', async () => {
    const namespace = await Namespace.create();
    try {
      const config = join(dataDir, 'serve.json');
      writeFileSync(config, JSON.stringify({ platform: 'EKeyLocks', api: { host: '0.0.0.0' } }));
      const serve = spawnNode(builtCli(), ['serve', '--config', config, '--data', join(dataDir, 'lo-serve'), '--port', '8787'], { wrapper: namespace.wrapper });
      children.push(serve);
      await serve.stderrMatch(/Web app: /, STARTUP_MS);
      const lines = serve.stderr().split('\n');
      expect(lines).toContain('[info] eKey access service listening on http://127.0.0.1:8787');
      const advice = lines.filter((line) => line.includes('No address of this host that other devices can reach'));
      expect(advice).toEqual([
        '[warn] No address of this host that other devices can reach was found (only loopback): links the service prints or mails ' +
          '(invitations, the web app) open on this machine only. Connect the host to the network, or set api.public_url to the ' +
          "address people use (e.g. http://homebridge.local:8787, or your proxy's https URL).",
      ]);
    } finally {
      namespace.close();
    }
  }, 60_000);
});
