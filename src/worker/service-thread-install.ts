import { fileURLToPath } from 'node:url';
import { SERVICE_THREAD_BUNDLE, writeBuildCacheAtInstall } from './service-thread-code.js';

/*
 * The package's `postinstall`: V8's code cache for the service thread's bundle, made with the Node
 * that installed the package, so the first start after an install compiles with it
 * (service-thread-code.ts). Writes only inside this package's dist/worker/, prints nothing and never
 * fails the install; without it (`--ignore-scripts`, a read-only folder) a start compiles the bundle
 * as it would without a cache. In a source checkout before `npm run build` there is nothing to do:
 * `package.json` calls it so that a missing file is no error either.
 */
writeBuildCacheAtInstall(fileURLToPath(new URL(`./${SERVICE_THREAD_BUNDLE}`, import.meta.url)));
