/**
 * PKCE (RFC 7636, S256). `crypto.subtle` exists only in secure contexts (HTTPS, localhost); on a
 * plain-HTTP address of the home network (`http://homebridge.local:8787`) the SHA-256 comes from
 * @noble/hashes instead. `crypto.getRandomValues` works in both.
 */
import { sha256 } from '@noble/hashes/sha2';

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 32 random bytes, base64url: 43 characters. */
export function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** Which SHA-256 the challenge came from (shown nowhere; tests assert it on a LAN address). */
export let lastDigestSource: 'subtle' | 'library' | undefined;

/** BASE64URL(SHA256(ASCII(verifier))). */
export async function challengeOf(verifier: string): Promise<string> {
  const data = new TextEncoder().encode(verifier);
  if (typeof crypto.subtle !== 'undefined' && typeof crypto.subtle.digest === 'function') {
    lastDigestSource = 'subtle';
    return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', data)));
  }
  lastDigestSource = 'library';
  return base64url(sha256(data));
}

const PENDING = 'ekey.signin';

interface PendingSignIn {
  state: string;
  verifier: string;
}

/** Starts an authorization request: remembers state and verifier for the callback, returns its parameters. */
export async function newAuthorizationRequest(clientId: string, redirectUri: string): Promise<URLSearchParams> {
  const pending: PendingSignIn = { state: randomToken(), verifier: randomToken() };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  return new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    state: pending.state,
    code_challenge: await challengeOf(pending.verifier),
    code_challenge_method: 'S256',
  });
}

/** The verifier of the request whose `state` came back, once (it is forgotten). */
export function takeVerifier(state: string | null): string | undefined {
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  if (raw === null || state === null) return undefined;
  try {
    const pending = JSON.parse(raw) as PendingSignIn;
    return pending.state === state ? pending.verifier : undefined;
  } catch {
    return undefined;
  }
}
