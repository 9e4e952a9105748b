import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt parameters: N=2^15, r=8, p=1 (OWASP's minimum), 64-byte key. */
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 64;

/**
 * Each derivation holds 128·N·r bytes (32 MiB) while it runs, in libuv's thread pool, outside the
 * JavaScript heap. One at a time: a first start that hashes the demo household's four passwords
 * would otherwise hold 128 MiB at once — on a 1 GB Raspberry Pi the peak that matters
 * (docs/performance.md "footprint"). The CPU cost is the same; a second caller waits its turn.
 */
let running = false;
const queue: (() => void)[] = [];

async function derive(password: string, salt: Buffer, params: ScryptOptions): Promise<Buffer> {
  if (running) await new Promise<void>((resolve) => queue.push(resolve));
  running = true;
  try {
    return await deriveNow(password, salt, params);
  } finally {
    const next = queue.shift();
    if (next) next();
    else running = false;
  }
}

function deriveNow(password: string, salt: Buffer, params: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, params, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

/** Hashes a password as `scrypt$N$r$p$salt$key` (base64url parts), never reversible. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Checks a password against a stored hash in constant time; false for any malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltText, keyText] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || saltText === undefined || keyText === undefined) return false;
  const expected = Buffer.from(keyText, 'base64url');
  const key = await derive(password, Buffer.from(saltText, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
