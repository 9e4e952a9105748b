import { afterAll, beforeAll } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCli, spawnNode, type RunningChild } from './child-process.js';
import { loginOverHttp, type LoginClient, type OAuthTokens } from './oauth-login.js';
import { untilCommandFinished } from './polling.js';

/**
 * The first stdout line of `ekey-locks demo` (docs/design.md §6 "Running it"), and the
 * `EKEY_DEMO` line the plugin prints under Homebridge in demo mode.
 */
export interface DemoLine {
  base_url: string;
  clients: { client_id: string; client_secret: string; redirect_uri: string }[];
  users: { id: string; email: string; password: string; name: string }[];
  locks: { id: string; name: string; owner_id: string; gateway: boolean; family: string }[];
}

/** What a sign-in needs of a demo household: the demo line's, or a test service's (src/demo/demo-household.ts). */
interface DemoHouseholdLike {
  users: readonly { email: string; password: string }[];
  clients: readonly LoginClient[];
}

/** One answer line of the demo's stdin control protocol. */
export interface ControlAnswer {
  ok: boolean;
  error?: string;
  id?: unknown;
  [key: string]: unknown;
}

/** A running `ekey-locks demo` child, driven as a black box. */
export interface DemoProcess {
  child: RunningChild;
  demo: DemoLine;
  /** The first stdout line exactly as printed. */
  firstLine: string;
  /** Writes one control line (an `id` is added) and resolves with the answer that echoes it. */
  control(line: Record<string, unknown>, timeoutMs?: number): Promise<ControlAnswer>;
  /** Writes a raw line and resolves with the next answer line. */
  controlRaw(line: string, timeoutMs?: number): Promise<ControlAnswer>;
  /** The authorization-code flow over HTTP for a demo user (by index in `demo.users`). */
  login(userIndex: number): Promise<OAuthTokens>;
  /** SIGTERM, then the exit status. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let controlCounter = 0;

/**
 * Spawns the real CLI (`node <built>/cli.js demo --port 0 [args…] [--data DIR]`; `cli` names another build's), reads its first
 * stdout line and returns helpers to drive it. TZ is pinned so eKey DateTimes are predictable.
 */
export async function startDemo(options: { dataDir?: string; env?: Record<string, string>; timeoutMs?: number; cli?: string; config?: string; args?: string[] } = {}): Promise<DemoProcess> {
  const args = ['demo', '--port', '0', ...(options.args ?? [])];
  if (options.dataDir !== undefined) args.push('--data', options.dataDir);
  if (options.config !== undefined) args.push('--config', options.config);
  const child = spawnNode(options.cli ?? builtCli(), args, { env: { TZ: 'UTC', ...options.env } });
  let firstLine: string;
  try {
    firstLine = await child.nextLine(() => true, options.timeoutMs ?? 20_000);
  } catch (error) {
    child.kill();
    throw error;
  }
  const demo = JSON.parse(firstLine) as DemoLine;

  const controlRaw = async (line: string, timeoutMs = 10_000): Promise<ControlAnswer> => {
    const answer = child.nextLine((text) => text.trim().startsWith('{'), timeoutMs);
    child.process.stdin.write(`${line}\n`);
    return JSON.parse(await answer) as ControlAnswer;
  };

  const control = async (line: Record<string, unknown>, timeoutMs = 10_000): Promise<ControlAnswer> => {
    const id = `ctl-${process.pid}-${++controlCounter}`;
    const answer = child.nextLine((text) => {
      try {
        return (JSON.parse(text) as ControlAnswer).id === id;
      } catch {
        return false;
      }
    }, timeoutMs);
    child.process.stdin.write(`${JSON.stringify({ ...line, id })}\n`);
    return JSON.parse(await answer) as ControlAnswer;
  };

  const login = (userIndex: number): Promise<OAuthTokens> => {
    const user = demo.users[userIndex];
    if (!user) throw new Error(`demo line has no user ${userIndex}`);
    return signInDemoUser(demo.base_url, demo, user.email);
  };

  const stop = async (): Promise<{ code: number | null; signal: NodeJS.Signals | null }> => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, 8_000);
    const exit = await child.exited;
    clearTimeout(timer);
    return exit;
  };

  return { child, demo, firstLine, control, controlRaw, login, stop };
}

/**
 * The authorization-code flow over HTTP for a demo user (by e-mail; the first user, the owner,
 * by default) with the demo's OAuth client, against `baseUrl` (the demo's, or a relay's).
 */
export function signInDemoUser(baseUrl: string, demo: DemoHouseholdLike, email?: string): Promise<OAuthTokens> {
  const user = email === undefined ? demo.users[0] : demo.users.find((candidate) => candidate.email === email);
  const client = demo.clients[0];
  if (!user || !client) throw new Error(`demo line has no user ${email ?? '#0'} or no client`);
  return loginOverHttp({ baseUrl, client, email: user.email, password: user.password });
}

/** The answer of one HTTP call, body parsed when it is JSON. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
  /** `body` as a record (empty object when it is not one). */
  json: Record<string, unknown>;
}

/** One HTTP call against the demo with sensible defaults (JSON Accept, bearer token, JSON body). */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers['content-type'] = 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, options.headers);
  const url = path.startsWith('http') ? path : `${baseUrl}${path}`;
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }), redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const json = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  return { status: response.status, headers: response.headers, text, body: parsed, json };
}

/** One demo for the tests of a `describe` block, its owner signed in. */
export interface DemoSession {
  /** The running demo (from `beforeAll` on). */
  readonly demo: DemoProcess;
  /** The owner's (first demo user's) id and access token. */
  readonly ownerId: string;
  readonly token: string;
  /** The id of the demo lock named `name`. @throws Error when the demo has none */
  readonly lockId: (name: string) => string;
  /** One API call, as the owner unless `bearer` says otherwise; the body parsed as a record. */
  readonly api: (method: string, path: string, body?: unknown, bearer?: string) => Promise<{ status: number; body: Record<string, unknown> }>;
  /** Polls the lock's command until it finished (completed or failed) and resolves with it. */
  readonly finished: (lockId: string, commandId: string) => Promise<Record<string, unknown>>;
  /** Creates a command of `type` on the lock and resolves with it once it finished. */
  readonly command: (lockId: string, type: string) => Promise<Record<string, unknown>>;
}

/**
 * Starts `ekey-locks demo` on a fresh data folder (`<folderPrefix>…` under the temp folder) in
 * `beforeAll`, signs the owner in, and stops it and removes the folder in `afterAll`. Call it inside
 * the `describe` block whose tests use it.
 */
export function useDemo(folderPrefix: string): DemoSession {
  let running: { demo: DemoProcess; dataDir: string; ownerId: string; token: string } | undefined;
  const current = (): { demo: DemoProcess; dataDir: string; ownerId: string; token: string } => {
    if (running === undefined) throw new Error('the demo starts in beforeAll');
    return running;
  };
  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), folderPrefix));
    const demo = await startDemo({ dataDir });
    const owner = demo.demo.users[0];
    if (!owner) throw new Error('demo line has no users');
    running = { demo, dataDir, ownerId: owner.id, token: (await demo.login(0)).access_token };
  });
  afterAll(async () => {
    if (running === undefined) return;
    await running.demo.stop();
    rmSync(running.dataDir, { recursive: true, force: true });
  });
  const session: DemoSession = {
    get demo(): DemoProcess {
      return current().demo;
    },
    get ownerId(): string {
      return current().ownerId;
    },
    get token(): string {
      return current().token;
    },
    lockId: (name) => {
      const lock = current().demo.demo.locks.find((entry) => entry.name === name);
      if (!lock) throw new Error(`the demo has no lock named ${name}`);
      return lock.id;
    },
    api: async (method, path, body, bearer = current().token) => {
      const answer = await call(current().demo.demo.base_url, method, path, { token: bearer, ...(body === undefined ? {} : { body }) });
      return { status: answer.status, body: answer.json };
    },
    command: async (lockId, type) => {
      const created = await session.api('POST', `/locks/${lockId}/commands`, { type });
      if (created.status !== 201) throw new Error(`POST /locks/${lockId}/commands answered ${created.status}: ${JSON.stringify(created.body)}`);
      return session.finished(lockId, String(created.body.id));
    },
    finished: (lockId, commandId) => untilCommandFinished(async () => (await session.api('GET', `/locks/${lockId}/commands/${commandId}`)).body),
  };
  return session;
}
