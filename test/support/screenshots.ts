import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from './global-setup.js';

/** The README's pictures, tracked in git. */
export const DOCS_IMAGES = join(PROJECT_ROOT, 'docs', 'images');

/**
 * Where a browser test saves the screenshots that illustrate the docs: `docs/images/` only when
 * asked (`UPDATE_SCREENSHOTS=1`), otherwise a fresh temporary folder, so a test run never rewrites
 * tracked files.
 */
export function screenshotFolder(prefix: string): string {
  return process.env.UPDATE_SCREENSHOTS === '1' ? DOCS_IMAGES : mkdtempSync(join(tmpdir(), prefix));
}
