#!/usr/bin/env node
// `npm start`: runs the real Homebridge from devDependencies with a local storage folder
// (.homebridge/, git-ignored) and this plugin in demo mode. The bridge's identity and setup
// code are created once and kept, so a pairing made from the Home app survives restarts.
import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const storage = process.env.EKEY_HOMEBRIDGE_STORAGE ?? join(root, '.homebridge');
const configFile = join(storage, 'config.json');

/** A setup code HAP accepts (not trivially guessable patterns like 111-11-111 or 123-45-678). */
function setupCode() {
  const invalid = new Set(['00000000', '11111111', '22222222', '33333333', '44444444', '55555555', '66666666', '77777777', '88888888', '99999999', '12345678', '87654321']);
  for (;;) {
    const digits = String(randomInt(0, 100_000_000)).padStart(8, '0');
    if (!invalid.has(digits)) return `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`;
  }
}

function macAddress() {
  const bytes = randomBytes(6);
  bytes[0] = (bytes[0] & 0xfe) | 0x02; // locally administered, unicast
  return [...bytes].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');
}

mkdirSync(storage, { recursive: true });
if (!existsSync(configFile)) {
  const config = {
    bridge: { name: 'eKey Locks Demo', username: macAddress(), port: 51826, pin: setupCode(), advertiser: 'ciao' },
    accessories: [],
    // On every interface, so a phone on the home network opens the web app and the invitation links
    // (the log names this host's home-network address; docs/design.md §7).
    platforms: [{ platform: 'EKeyLocks', name: 'eKey Locks', demo: true, api: { port: Number(process.env.EKEY_API_PORT ?? 8787), host: '0.0.0.0' } }],
  };
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
}
const config = JSON.parse(readFileSync(configFile, 'utf8'));

process.stdout.write(
  `\nStarting Homebridge with homebridge-ekey-locks in demo mode\n` +
    `  storage:            ${storage}\n` +
    `  HomeKit setup code: ${config.bridge.pin}   (Home app → Add Accessory → More options)\n` +
    `  Web app:            see the "Web app:" line below (the address a phone on your network opens)\n` +
    `  REST API and demo logins: the "EKEY_DEMO" line and "Demo login" lines below, and ${join(storage, 'ekey-locks', 'demo.json')}\n\n`,
);

const homebridge = join(root, 'node_modules', 'homebridge', 'bin', 'homebridge.js');
const child = spawn(process.execPath, [homebridge, '-U', storage, '-P', root, '--strict-plugin-resolution'], {
  stdio: 'inherit',
  env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '1' },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
