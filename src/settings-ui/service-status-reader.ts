import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS_UI_FILE, type SettingsUiStatus } from '../store/settings-ui-file.js';
import { StartReportFile } from '../store/start-report-file.js';

/** Why the settings page cannot reach the service: always a sentence the user can act on. */
export class ServiceUnavailable extends Error {
  constructor(
    /** `stopped`: no service runs; `unreadable`: the status file cannot be read; `unreachable`: it runs but does not answer; `refused`: it answered with an error. */
    readonly state: 'stopped' | 'unreadable' | 'unreachable' | 'refused',
    message: string,
  ) {
    super(message);
  }
}

/**
 * "Not running", with the reason the last start gave in its own words (docs/design.md §7), read
 * from the platform's start report; without one, where to look.
 */
export function notRunning(dataDir: string): string {
  const report = new StartReportFile(dataDir).read();
  if (report === undefined || report.lines.length === 0 || report.running) {
    return 'The eKey Locks service is not running. Check that the plugin is enabled and Homebridge is running; the Homebridge log says why it did not start in the lines marked [eKey Locks].';
  }
  const said = report.lines.map((line) => line.replace(/\s+/g, ' ').trim()).join(' ');
  return `The eKey Locks service is not running. When Homebridge started it, it said: “${said}”`;
}

/** The plugin's data folder inside Homebridge's storage path (as the platform uses it). */
export const dataDirOf = (storagePath: string): string => join(storagePath, 'ekey-locks');

/**
 * Reads the status file the running service wrote (src/store/settings-ui-file.ts) and checks that
 * its process still lives. @throws ServiceUnavailable
 */
export function readServiceStatus(dataDir: string, isAlive: (pid: number) => boolean = processIsAlive): SettingsUiStatus {
  const path = join(dataDir, SETTINGS_UI_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT') throw new ServiceUnavailable('stopped', notRunning(dataDir));
    throw new ServiceUnavailable('unreadable', `The service's status file ${path} cannot be read (${code}). The Homebridge UI must run as the same user as Homebridge.`);
  }
  let parsed: Partial<SettingsUiStatus>;
  try {
    parsed = JSON.parse(text) as Partial<SettingsUiStatus>;
  } catch {
    throw new ServiceUnavailable('unreadable', `The service's status file ${path} is damaged (not JSON). Restart Homebridge to rewrite it.`);
  }
  if (
    typeof parsed.local_url !== 'string' ||
    typeof parsed.base_url !== 'string' ||
    typeof parsed.setup_token !== 'string' ||
    typeof parsed.pid !== 'number' ||
    typeof parsed.port !== 'number'
  ) {
    throw new ServiceUnavailable('unreadable', `The service's status file ${path} is incomplete. Restart Homebridge to rewrite it.`);
  }
  if (!isAlive(parsed.pid)) {
    const report = new StartReportFile(dataDir).read();
    if (report !== undefined && report.lines.length > 0 && !report.running) throw new ServiceUnavailable('stopped', notRunning(dataDir));
    const since = typeof parsed.started_at === 'string' ? ` (it was started at ${parsed.started_at})` : '';
    throw new ServiceUnavailable('stopped', `The eKey Locks service is not running: its process has ended${since}. Restart Homebridge and check its log.`);
  }
  return parsed as SettingsUiStatus;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What the running service left out of its config, in the words it logged (empty when nothing). */
export function configProblems(dataDir: string): string[] {
  const report = new StartReportFile(dataDir).read();
  return report?.running === true ? report.lines : [];
}
