import { createHmac, randomBytes } from 'node:crypto';

/*
 * Standard Webhooks' symmetric signature (spec/standard-webhooks.md of standard-webhooks/standard-webhooks,
 * v1): the secret is `whsec_` + base64 of random bytes; a delivery is signed as
 * `v1,<base64 of HMAC-SHA256(secret bytes, "<webhook-id>.<webhook-timestamp>.<body>")>`. Node's
 * crypto is all it takes; tests hold it to the specification's published vector and to the
 * `standardwebhooks` library's verification.
 */

const SECRET_PREFIX = 'whsec_';
/** 32 random bytes: inside the specification's 24–64. */
const SECRET_BYTES = 32;

/** A fresh endpoint secret: `whsec_` + base64 of 32 random bytes (docs/design.md §11). */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The bytes a secret stands for (the base64 after `whsec_`). */
function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** The `webhook-signature` header of one attempt: `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`. */
export function signWebhook(secret: string, id: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(`${id}.${String(timestampS)}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** A delivery's id (the `webhook-id` header, the same on every attempt): `msg_` + 128 random bits, no dots. */
export function newDeliveryId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}
