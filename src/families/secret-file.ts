import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A family's credential file in the data folder (docs/security.md): JSON, mode 0600 in a 0700
 * folder, replaced whole and atomically, the rename made durable. Errors name the file, never its content.
 */

/** The file's JSON, or undefined when it does not exist. @throws Error when it cannot be read or parsed. */
export function readSecretJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${path} is not valid JSON`);
  }
}

/** Writes `value` as the file's whole content: a new 0600 file, fsynced, renamed over the old one. @throws Error when it cannot be written. */
export function writeSecretJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  // A temporary file left by a crash may have any mode: start from a new one ('wx' refuses to reuse it).
  rmSync(temporary, { force: true });
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      // The mode given to open is masked by the umask; this sets it exactly, before any secret is written.
      fchmodSync(fd, 0o600);
      writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  syncFolder(dirname(path));
}

/** Makes the rename durable (best effort: not every platform can fsync a folder). */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // The file itself was synced; at worst a power cut brings the previous version back.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
