// Refuses to install on a Node older than the plugin supports (docs/decisions/runtimes.md):
// package.json runs it as `preinstall`, so `npm install` on Node 20 stops here with one clear
// sentence instead of a SQLite driver that crashes at the first query. A Node newer than 24 is
// left to npm's engines warning: nothing we know of breaks there.
import { pathToFileURL } from 'node:url';

/** The oldest Node major we support (docs/design.md §10: Node 22 and 24). */
export const OLDEST_NODE_MAJOR = 22;

/** Why Node `version` (e.g. "20.18.1") cannot run the plugin, or null when it can. */
export function unsupportedNodeMessage(version) {
  const shown = `v${String(version).replace(/^v/, '')}`;
  const major = Number(shown.slice(1).split('.')[0]);
  if (major >= OLDEST_NODE_MAJOR) return null;
  const why = major === 20 ? ', which reached its end of life on 30 April 2026' : ', which is no longer maintained';
  return (
    `homebridge-ekey-locks needs Node.js 22 or 24; this is Node.js ${shown}${why}. ` +
    'Update Node.js (https://github.com/homebridge/homebridge/wiki/How-To-Update-Node.js), then install the plugin again.'
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const message = unsupportedNodeMessage(process.versions.node);
  if (message !== null) {
    console.error(message);
    process.exit(1);
  }
}
