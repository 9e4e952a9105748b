import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** A dbus-daemon of our own, for one test file (one Jest worker runs one file at a time). */
export interface PrivateDbusDaemon {
  /** The address to give dbus-next / DBUS_SYSTEM_BUS_ADDRESS. */
  address: string;
  /** Stops the daemon and removes its folder. */
  stop(): Promise<void>;
}

const CONFIG = (socket: string): string => `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standard/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>custom</type>
  <listen>unix:path=${socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
  <limit name="max_match_rules_per_connection">512</limit>
</busconfig>
`;

/**
 * The wrapper makes the daemon die with the test process: `cat` returns when our end of its
 * stdin closes (normal stop, crash or kill -9 of Jest alike), and the shell then kills the daemon.
 */
const WRAPPER = 'dbus-daemon --config-file="$1" --nofork --nopidfile --print-address=1 & pid=$!; cat >/dev/null; kill $pid 2>/dev/null; wait $pid';

/** Starts a private dbus-daemon in a fresh temporary folder (socket path well under 108 chars). */
export async function startPrivateDbusDaemon(): Promise<PrivateDbusDaemon> {
  const folder = await mkdtemp(join(tmpdir(), 'fbz-'));
  const socket = join(folder, 'bus');
  const configFile = join(folder, 'bus.conf');
  await writeFile(configFile, CONFIG(socket));
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn('sh', ['-c', WRAPPER, 'sh', configFile], { stdio: ['pipe', 'pipe', 'ignore'] });
  const address = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      reject(new Error('dbus-daemon did not start within 5 s'));
    }, 5000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const newline = output.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(output.slice(0, newline).trim());
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dbus-daemon exited early with ${String(code)}`));
    });
  });
  return {
    address,
    stop: async () => {
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null) resolve();
        else
          child.once('exit', () => {
            resolve();
          });
      });
      child.stdin.end();
      await exited;
      await rm(folder, { recursive: true, force: true });
    },
  };
}
