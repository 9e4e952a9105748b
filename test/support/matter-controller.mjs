// A Matter controller (matter.js, the same version Homebridge 2.4 runs) driven over stdin/stdout
// by the Matter end-to-end test. It runs inside the test's private network namespace (nsenter),
// next to Homebridge. One JSON request per line in; one JSON answer per line out, echoing `id`:
//   {"id":1,"op":"commission","pairingCode":"…"}   → {"id":1,"ok":true}
//   {"id":2,"op":"connect"}                         → {"id":2,"ok":true}        (a node commissioned earlier)
//   {"id":3,"op":"locks"}                           → {"id":3,"ok":true,"locks":[{"endpoint":N,"name":"…","serial":"…"}]}
//   {"id":4,"op":"read","endpoint":N}               → {"id":4,"ok":true,"lockState":1,"batPercentRemaining":84,"reachable":true}
//   {"id":5,"op":"invoke","endpoint":N,"command":"unlockDoor"} → {"id":5,"ok":true} or {"ok":false,"status":1,"error":"…"}
//   {"id":6,"op":"close"}                           → {"id":6,"ok":true}, then exit
// Reads are real Matter reads (not the subscription's cache), so a value is what the bridge says now.
import { createInterface } from 'node:readline';
import { Environment, ServerNode } from '@matter/main';
import { BridgedDeviceBasicInformationClient } from '@matter/main/behaviors/bridged-device-basic-information';
import { DoorLockClient } from '@matter/main/behaviors/door-lock';
import { PowerSourceClient } from '@matter/main/behaviors/power-source';

const [storagePath, networkInterface] = process.argv.slice(2);
const environment = Environment.default;
environment.vars.set('storage.path', storagePath);
environment.vars.set('mdns.networkInterface', networkInterface);
environment.vars.set('log.level', 'warn');

const PEER_ID = 'bridge';
const controller = await ServerNode.create({ id: 'controller', network: { port: 5541 } });

function peer() {
  const node = controller.peers.get(PEER_ID);
  if (node === undefined) throw new Error('no commissioned bridge');
  return node;
}

function* walk(endpoint) {
  yield endpoint;
  for (const part of endpoint.parts) yield* walk(part);
}

function doorLocks() {
  return [...walk(peer())].filter((endpoint) => endpoint.behaviors.has(DoorLockClient));
}

function doorLock(number) {
  const endpoint = doorLocks().find((candidate) => candidate.number === number);
  if (endpoint === undefined) throw new Error(`no door lock on endpoint ${number}`);
  return endpoint;
}

const handlers = {
  async commission({ pairingCode }) {
    await controller.peers.commission({ id: PEER_ID, pairingCode });
    await peer().start();
    return {};
  },
  async connect() {
    await peer().start();
    return {};
  },
  async locks() {
    const locks = [];
    for (const endpoint of doorLocks()) {
      const info = await endpoint.getStateOf(BridgedDeviceBasicInformationClient, ['nodeLabel', 'serialNumber'], { includeKnownVersions: true });
      locks.push({ endpoint: endpoint.number, name: info.nodeLabel, serial: info.serialNumber });
    }
    return { locks };
  },
  async read({ endpoint: number }) {
    const endpoint = doorLock(number);
    const { lockState } = await endpoint.getStateOf(DoorLockClient, ['lockState'], { includeKnownVersions: true });
    let batPercentRemaining;
    if (endpoint.behaviors.has(PowerSourceClient)) {
      ({ batPercentRemaining } = await endpoint.getStateOf(PowerSourceClient, ['batPercentRemaining'], { includeKnownVersions: true }));
    }
    const { reachable } = await endpoint.getStateOf(BridgedDeviceBasicInformationClient, ['reachable'], { includeKnownVersions: true });
    return { lockState, batPercentRemaining, reachable };
  },
  async invoke({ endpoint: number, command }) {
    if (command !== 'lockDoor' && command !== 'unlockDoor') throw new Error(`unknown command ${command}`);
    await doorLock(number).commandsOf(DoorLockClient)[command]({});
    return {};
  },
  async close() {
    await controller.close();
    return {};
  },
};

const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    let request = {};
    try {
      request = JSON.parse(line);
      const handler = handlers[request.op];
      if (handler === undefined) throw new Error(`unknown op ${request.op}`);
      const result = await handler(request);
      process.stdout.write(`${JSON.stringify({ id: request.id, ok: true, ...result })}\n`);
      if (request.op === 'close') process.exit(0);
    } catch (error) {
      const status = typeof error?.code === 'number' ? error.code : undefined;
      process.stdout.write(`${JSON.stringify({ id: request.id, ok: false, status, error: String(error?.message ?? error) })}\n`);
    }
  });
});
lines.on('close', () => {
  void controller.close().finally(() => process.exit(0));
});
