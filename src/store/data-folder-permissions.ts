import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../logger.js';

/** The data folder: only the user that runs the service may enter it (docs/design.md §9b). */
export const DATA_FOLDER_MODE = 0o700;
/** Every file in it — the database with `-wal` and `-shm`, Nuki credentials, the settings-page file. */
export const DATA_FILE_MODE = 0o600;

/** Group and other permission bits: none may be set on anything of ours. */
const OPEN_TO_OTHERS = 0o077;

/**
 * Makes the data folder private before the database opens: the folder 0700, every file in it 0600
 * (they hold every lock's Bluetooth key in clear, the password hashes and the Nuki credentials),
 * whatever the umask. A fresh database file is created 0600 here, so SQLite gives its `-wal` and
 * `-shm` the same mode. An existing install with wider modes is repaired, with one log line.
 * Files in subfolders are covered by the folder's mode. A file we cannot change (another owner)
 * is named in that line instead of failing the start.
 */
export function secureDataFolder(dataDir: string, databaseFile: string, logger: Logger): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: DATA_FOLDER_MODE });
  } catch {
    return; // Opening the database then fails with the one clear sentence (store/database.ts).
  }
  const repaired: string[] = [];
  const failed: string[] = [];
  const tighten = (path: string, mode: number, name: string): void => {
    try {
      if ((statSync(path).mode & OPEN_TO_OTHERS) === 0) return;
      chmodSync(path, mode);
      repaired.push(name);
    } catch {
      failed.push(name);
    }
  };
  tighten(dataDir, DATA_FOLDER_MODE, 'the folder');
  let entries: string[] | undefined;
  try {
    entries = readdirSync(dataDir);
  } catch {
    entries = undefined; // Not readable: opening the database says so.
  }
  for (const name of entries ?? []) {
    const path = join(dataDir, name);
    let isFile = false;
    try {
      isFile = statSync(path).isFile();
    } catch {
      // Gone meanwhile.
    }
    if (isFile) tighten(path, DATA_FILE_MODE, name);
  }
  // Created empty with the private mode; SQLite then makes it a database and copies the mode to -wal/-shm.
  try {
    closeSync(openSync(join(dataDir, databaseFile), 'a', DATA_FILE_MODE));
  } catch {
    // Not writable: opening the database says so in one sentence.
  }
  if (repaired.length > 0 || failed.length > 0) {
    const fixed = repaired.length > 0 ? `made private (folder 0700, files 0600): ${repaired.join(', ')}` : '';
    const stuck = failed.length > 0 ? `${fixed === '' ? '' : '; '}could not be made private, fix by hand: ${failed.join(', ')}` : '';
    logger.warn(`Data folder ${dataDir} was readable by other users of this host; ${fixed}${stuck}.`);
  }
}
