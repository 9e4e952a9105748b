import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The demo's JSON (docs/design.md §6) as a file in the data folder, for scripts and the README. */
export const DEMO_FILE = 'demo.json';

/**
 * `demo.json` in the data folder: the same object as the demo's first stdout line / `EKEY_DEMO`
 * line, so a walk-through can read it without scraping a log. Readable by the owner only (it holds
 * the demo passwords), written whole (temporary file, then rename), removed when the demo is off.
 */
export class DemoFile {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, DEMO_FILE);
  }

  write(info: unknown): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(info)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.path);
  }

  remove(): void {
    rmSync(this.path, { force: true });
  }
}
