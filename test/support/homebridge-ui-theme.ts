/**
 * The real Homebridge UI's look (homebridge-config-ui-x 5.10, the version our other UI tests install):
 * its built `public/` folder — the theme stylesheet every plugin settings page inherits, with its
 * fonts — taken from the package as the npm registry serves it (`npm pack`, once per machine,
 * cached under node_modules/.cache). The test host (settings-ui-host.ts) links it into the page the
 * way the UI does: its stylesheets, its body classes (`config-ui-x-<theme>`, `modal-content`,
 * `dark-mode`) and its inline body colours.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './child-process.js';

export const HOMEBRIDGE_UI_VERSION = '5.10.0';
/** The UI's default theme (config.service: `theme || 'deep-purple'`). */
export const HOMEBRIDGE_UI_THEME = 'deep-purple';

/** The folder holding the UI's `public/` files; fetched on first use. */
export function homebridgeUiPublic(): string {
  const cache = join(PROJECT_ROOT, 'node_modules', '.cache', `homebridge-config-ui-x-${HOMEBRIDGE_UI_VERSION}`);
  const publicDir = join(cache, 'package', 'public');
  if (existsSync(join(publicDir, 'index.html'))) return publicDir;
  mkdirSync(cache, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const tarball = execFileSync(npm, ['pack', `homebridge-config-ui-x@${HOMEBRIDGE_UI_VERSION}`, '--silent', '--pack-destination', cache], { encoding: 'utf8', timeout: 300_000 }).trim().split('\n').pop() ?? '';
  execFileSync('tar', ['xzf', join(cache, tarball), '-C', cache, 'package/public']);
  return publicDir;
}

/** The UI's theme stylesheet (`styles-<hash>.css`), relative to its public folder. */
export function homebridgeUiStylesheet(publicDir: string): string {
  const file = readdirSync(publicDir).find((name) => /^styles-[A-Z0-9]+\.css$/.test(name));
  if (file === undefined) throw new Error(`no theme stylesheet in ${publicDir}`);
  return file;
}
