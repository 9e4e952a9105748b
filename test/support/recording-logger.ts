import type { Logger } from '../../src/logger.js';

/** A logger that keeps every line, so tests can assert on what was (and was not) logged. */
export class RecordingLogger implements Logger {
  readonly lines: { level: 'debug' | 'info' | 'warn' | 'error'; message: string }[] = [];

  debug(message: string): void {
    this.lines.push({ level: 'debug', message });
  }
  info(message: string): void {
    this.lines.push({ level: 'info', message });
  }
  warn(message: string): void {
    this.lines.push({ level: 'warn', message });
  }
  error(message: string): void {
    this.lines.push({ level: 'error', message });
  }

  /** Everything logged, one line per entry: handy for "never logs the token" assertions. */
  text(): string {
    return this.lines.map((line) => `${line.level} ${line.message}`).join('\n');
  }
}
