import { deceptiveTextProblem } from '../domain/display-text.js';
import { ServiceRoot } from '../service-root.js';
import { newId } from '../domain/ids.js';
import { newToken, sha256Hex } from '../auth/secrets.js';
import { consoleLogger } from '../logger.js';
import { defaultDataDir } from './data-dir.js';
import { parseOptions } from './parse-options.js';
import { UsageError } from './usage-error.js';

/** `ekey-locks client add --name N --redirect-uri URI [--public]`: the secret is shown once only. */
export async function clientCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'add') throw new UsageError('client needs "add".');
  const values = parseOptions(rest, {
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    public: { type: 'boolean' },
    data: { type: 'string' },
  });
  const redirectUris = values['redirect-uri'] ?? [];
  if (values.name === undefined || redirectUris.length === 0) throw new UsageError('client add needs --name and --redirect-uri.');
  // The name is shown on the sign-in page (src/domain/display-text.ts).
  const nameProblem = deceptiveTextProblem(values.name);
  if (nameProblem !== null) throw new UsageError(`--name ${nameProblem}.`);
  for (const uri of redirectUris) {
    if (!URL.canParse(uri) || uri.includes('#')) throw new UsageError(`--redirect-uri must be an absolute URL without a fragment, not "${uri}".`);
  }
  const service = await ServiceRoot.open({ config: {}, applyConfig: false, dataDir: values.data ?? defaultDataDir(), logger: consoleLogger, demo: false });
  try {
    const isPublic = values.public ?? false;
    const secret = isPublic ? undefined : newToken();
    const id = newId();
    service.repositories.clients.upsert({
      id,
      name: values.name,
      secretHash: secret === undefined ? null : sha256Hex(secret),
      isPublic,
      redirectUris,
      createdAt: service.clock.now(),
    });
    process.stdout.write(`${JSON.stringify({ client_id: id, client_secret: secret ?? null, redirect_uris: redirectUris, public: isPublic })}\n`);
  } finally {
    await service.close();
  }
}
