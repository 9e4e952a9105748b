import { ServiceRoot } from '../service-root.js';
import { ServiceError } from '../domain/errors.js';
import { consoleLogger } from '../logger.js';
import { defaultDataDir } from './data-dir.js';
import { parseOptions } from './parse-options.js';
import { UsageError } from './usage-error.js';

/** A refusal of the service as the CLI's usage error, naming the option of each field at fault; any other error as it is. */
function asUsageError(error: unknown): unknown {
  if (!(error instanceof ServiceError)) return error;
  const details = error.errors?.map((e) => ` ${e.field.replace(/^\//, '--')} ${e.message}.`).join('') ?? '';
  return new UsageError(`${error.message}${details}`);
}

/**
 * The password of `--password P` or `--password-stdin`. A password on the command line is visible
 * to every local user while the command runs (`ps`, /proc/PID/cmdline) and stays in the shell's
 * history (issue #32, finding 11): it still works, with a warning that names the better way.
 */
async function passwordOption(values: { password?: string | undefined; 'password-stdin'?: boolean | undefined }): Promise<string | undefined> {
  if (values['password-stdin'] === true) return readStdin();
  if (values.password !== undefined) {
    process.stderr.write(
      'Warning: --password is visible to other users of this computer while the command runs, and stays in your shell history. ' +
        'Prefer --password-stdin (e.g. read -rs P && printf %s "$P" | ekey-locks user … --password-stdin).\n',
    );
  }
  return values.password;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** `ekey-locks user add|list|reset-password` */
export async function userCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'list') {
    const values = parseOptions(rest, { data: { type: 'string' } });
    const service = await ServiceRoot.open({ config: {}, applyConfig: false, dataDir: values.data ?? defaultDataDir(), logger: consoleLogger, demo: false });
    try {
      for (const user of service.services.users.list()) {
        const state = user.passwordHash === null ? 'invited' : 'active';
        process.stdout.write(`${user.id}\t${user.email}\t${user.name}\t${state}\n`);
      }
    } finally {
      await service.close();
    }
    return;
  }
  if (action === 'reset-password') {
    await resetPassword(rest);
    return;
  }
  if (action !== 'add') throw new UsageError('user needs "add", "list" or "reset-password".');
  const values = parseOptions(rest, {
    email: { type: 'string' },
    name: { type: 'string' },
    password: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    quota: { type: 'string' },
    data: { type: 'string' },
  });
  if (values.email === undefined || values.name === undefined) throw new UsageError('user add needs --email and --name.');
  const password = await passwordOption(values);
  if (password === undefined) throw new UsageError('user add needs --password-stdin (or --password P).');
  if (values.quota !== undefined && !/^\d+$/.test(values.quota)) throw new UsageError('--quota must be a whole number.');
  const service = await ServiceRoot.open({ config: {}, applyConfig: false, dataDir: values.data ?? defaultDataDir(), logger: consoleLogger, demo: false });
  try {
    const users = service.services.users;
    const existing = users.findByEmail(values.email);
    if (existing && existing.passwordHash === null) {
      // An invited address (a lock owner from the config, or an eKey recipient): activate it the
      // way the invitation link would, so its pending eKeys become accepted.
      const activated = await service.services.invitations.activateInvited(values.email, { name: values.name, password });
      const user = users.findById(activated.userId);
      process.stdout.write(`${JSON.stringify({ id: activated.userId, email: activated.email, name: user?.name ?? values.name, accepted_ekeys: activated.acceptedKeys })}\n`);
      return;
    }
    const user = await users.create({
      email: values.email,
      name: values.name,
      password,
      ekeyQuota: values.quota === undefined ? null : Number(values.quota),
    });
    process.stdout.write(`${JSON.stringify({ id: user.id, email: user.email, name: user.name })}\n`);
  } catch (error) {
    throw asUsageError(error);
  } finally {
    await service.close();
  }
}

/** `ekey-locks user reset-password --email E (--password-stdin | --password P)`: the owner's reset (docs/design.md §9b). */
async function resetPassword(args: string[]): Promise<void> {
  const values = parseOptions(args, {
    email: { type: 'string' },
    password: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    data: { type: 'string' },
  });
  if (values.email === undefined) throw new UsageError('user reset-password needs --email.');
  const password = await passwordOption(values);
  if (password === undefined) throw new UsageError('user reset-password needs --password-stdin (or --password P).');
  const service = await ServiceRoot.open({ config: {}, applyConfig: false, dataDir: values.data ?? defaultDataDir(), logger: consoleLogger, demo: false });
  try {
    const user = await service.services.passwords.reset(values.email, password);
    process.stdout.write(`${JSON.stringify({ id: user.id, email: user.email, sessions_ended: true })}\n`);
  } catch (error) {
    throw asUsageError(error);
  } finally {
    await service.close();
  }
}
