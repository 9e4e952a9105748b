import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The file name in the data folder (Homebridge's storage path + `/ekey-locks`). */
export const SETTINGS_UI_FILE = 'settings-ui.json';

/** What the running service tells the Homebridge UI settings page (homebridge-ui/server.js). */
export interface SettingsUiStatus {
  version: 1;
  /** The address users and the web app use (`api.public_url` when set). */
  base_url: string;
  /** The address on this host (loopback when listening on every interface), for server.js. */
  local_url: string;
  /** The port the API listens on, so the page can build `http://<host of the UI>:<port>/app/`. */
  port: number;
  /** Whether `base_url` was configured (a proxy or DNS name) rather than derived. */
  public_url: boolean;
  pid: number;
  started_at: string;
  /** Authenticates server.js on `/setup/*`; new at every start. Only this user can read the file. */
  setup_token: string;
}

/**
 * The settings page's way to the running service: written when the API starts listening, with mode
 * 0600 (the setup token in it is worth what the data folder is: whoever can read it can read the
 * database too), replaced atomically, removed when the service stops. No fsync: it is rewritten at
 * every start and worthless after a crash (server.js then finds its pid gone).
 */
export class SettingsUiFile {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, SETTINGS_UI_FILE);
  }

  write(status: SettingsUiStatus): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(status, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.path);
  }

  /** Removes the file if it is still ours (a newer service may have replaced it). */
  remove(setupToken: string): void {
    try {
      const current = JSON.parse(readFileSync(this.path, 'utf8')) as Partial<SettingsUiStatus>;
      if (current.setup_token === setupToken) rmSync(this.path, { force: true });
    } catch {
      // Gone or unreadable: nothing of ours to remove.
    }
  }
}
