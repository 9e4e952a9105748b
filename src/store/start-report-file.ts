import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The file name in the data folder, beside the settings page's status file (settings-ui-file.ts). */
export const START_REPORT_FILE = 'start-report.json';

/**
 * Why the service did not start, in the words it logged (docs/design.md §7: the settings page's
 * "not running" quotes the actual failure rather than telling the user what to look for).
 */
export interface StartReport {
  version: 1;
  /** ISO 8601 UTC. */
  at: string;
  /** The error lines of that start, as Homebridge's log shows them (no secrets: config field names and reasons). */
  lines: string[];
  /** True when the service runs all the same: the lines say what it left out of the config. */
  running: boolean;
}

/**
 * Written by the platform when a start fails or leaves part of the config out, removed when a start
 * has nothing to report; read by the settings page.
 */
export class StartReportFile {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, START_REPORT_FILE);
  }

  write(lines: readonly string[], running = false, at: Date = new Date()): void {
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      const temporary = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify({ version: 1, at: at.toISOString(), lines: [...lines], running } satisfies StartReport, null, 2)}\n`, { mode: 0o600 });
      renameSync(temporary, this.path);
    } catch {
      // Only a help for the settings page: the log has the same lines.
    }
  }

  clear(): void {
    rmSync(this.path, { force: true });
  }

  /** The last start's report, if any and readable. */
  read(): StartReport | undefined {
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as Partial<StartReport>;
      if (!Array.isArray(parsed.lines) || typeof parsed.at !== 'string') return undefined;
      return { version: 1, at: parsed.at, lines: parsed.lines.filter((line): line is string => typeof line === 'string'), running: parsed.running === true };
    } catch {
      return undefined;
    }
  }
}
