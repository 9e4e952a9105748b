/**
 * Signing in and staying signed in (docs/design.md §7): authorization code + PKCE through the service's
 * own sign-in page; refresh tokens rotate on every use (one refresh at a time — a second one with
 * the same token would revoke the family); sign-out revokes the tokens (RFC 7009).
 */
import { CLIENT_ID, redirectUri } from './config.js';
import { newAuthorizationRequest, takeVerifier } from './pkce.js';

interface Tokens {
  access_token: string;
  refresh_token: string;
  /** Epoch ms the access token expires at. */
  expires_at: number;
}

const STORAGE = 'ekey.tokens';
const listeners = new Set<(signedIn: boolean) => void>();
let refreshing: Promise<string> | undefined;

export class SignedOutError extends Error {
  constructor() {
    super('Your session has ended; please sign in again.');
  }
}

function load(): Tokens | undefined {
  try {
    const raw = localStorage.getItem(STORAGE);
    return raw === null ? undefined : (JSON.parse(raw) as Tokens);
  } catch {
    return undefined;
  }
}

function save(tokens: Tokens | undefined): void {
  if (tokens === undefined) localStorage.removeItem(STORAGE);
  else localStorage.setItem(STORAGE, JSON.stringify(tokens));
  for (const listener of listeners) listener(tokens !== undefined);
}

export const isSignedIn = (): boolean => load() !== undefined;

/** Called with true/false whenever the session starts or ends (also when a refresh fails). */
export function onSessionChange(listener: (signedIn: boolean) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const endpoint = (path: string): string => new URL(path, location.origin).toString();

async function tokenRequest(fields: Record<string, string>): Promise<Tokens> {
  const response = await fetch(endpoint('/oauth/token'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ ...fields, client_id: CLIENT_ID }).toString(),
  });
  const body = (await response.json().catch(() => ({}))) as { access_token?: string; refresh_token?: string; expires_in?: number; error_description?: string };
  if (!response.ok || body.access_token === undefined || body.refresh_token === undefined) {
    throw new Error('Signing in did not complete; please sign in again.');
  }
  return { access_token: body.access_token, refresh_token: body.refresh_token, expires_at: Date.now() + (body.expires_in ?? 3600) * 1000 };
}

/** The service's issuer identifier, from its authorization server metadata (RFC 8414). */
async function issuer(): Promise<string | undefined> {
  const response = await fetch(endpoint('/.well-known/oauth-authorization-server'), { headers: { accept: 'application/json' } });
  const body = (await response.json().catch(() => ({}))) as { issuer?: unknown };
  return response.ok && typeof body.issuer === 'string' ? body.issuer : undefined;
}

/** Goes to the sign-in page. */
export async function startSignIn(): Promise<void> {
  const params = await newAuthorizationRequest(CLIENT_ID, redirectUri());
  location.assign(endpoint(`/oauth/authorize?${params.toString()}`));
}

/** On `/app/callback`: exchanges the code, then shows the app. Resolves with an error message, if any. */
export async function completeSignIn(): Promise<string | undefined> {
  const query = new URLSearchParams(location.search);
  history.replaceState(null, '', `${location.pathname.replace(/callback$/, '')}#/`);
  const error = query.get('error');
  if (error !== null) return error === 'access_denied' ? 'Signing in was cancelled.' : 'Signing in did not complete; please sign in again.';
  const verifier = takeVerifier(query.get('state'));
  const code = query.get('code');
  if (verifier === undefined || code === null) return 'This sign-in link has expired or was already used; please sign in again.';
  try {
    // RFC 9207 (the mix-up defence RFC 9700 recommends): the answer must name the service this app
    // sent the user to; a code from anyone else is never redeemed.
    if (query.get('iss') !== (await issuer())) return 'This sign-in answer did not come from this service, so it was not used; please sign in again.';
    save(await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: redirectUri(), code_verifier: verifier }));
    return undefined;
  } catch (failure) {
    return failure instanceof TypeError ? 'The service cannot be reached: check the connection and try again.' : 'Signing in did not complete; please sign in again.';
  }
}

/** A token pair as the service answers it. */
export interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

let changing: Promise<void> | undefined;

/**
 * Continues the session with the tokens a request answers: a password change ends every session,
 * this one too, and hands it a new token family (the old refresh token died with the old password,
 * docs/security.md). A refresh asked for meanwhile (another request met a 401) waits for it and
 * takes the new access token instead of presenting the dead refresh token.
 */
export async function continueSessionWith(answer: Promise<TokenAnswer>): Promise<void> {
  const adopted = answer.then((body) => {
    save({ access_token: body.access_token, refresh_token: body.refresh_token, expires_at: Date.now() + body.expires_in * 1000 });
  });
  const current = adopted.then(
    () => undefined,
    () => undefined,
  );
  changing = current;
  try {
    await adopted;
  } finally {
    if (changing === current) changing = undefined;
  }
}

/** A fresh refresh (rotating the refresh token); concurrent callers share it. */
export function refreshNow(): Promise<string> {
  refreshing ??= (async () => {
    const before = load();
    if (changing !== undefined) {
      await changing;
      const after = load();
      if (after !== undefined && after.access_token !== before?.access_token) return after.access_token;
    }
    const tokens = load();
    if (!tokens) throw new SignedOutError();
    try {
      const next = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      save(next);
      return next.access_token;
    } catch {
      save(undefined);
      throw new SignedOutError();
    }
  })().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

/** An access token valid for at least the next 30 s. */
export async function accessToken(): Promise<string> {
  if (refreshing) return refreshing;
  const tokens = load();
  if (!tokens) throw new SignedOutError();
  return tokens.expires_at - Date.now() > 30_000 ? tokens.access_token : refreshNow();
}

/** Revokes the refresh token (its whole family, access tokens included) and forgets the session. */
export async function signOut(): Promise<void> {
  const tokens = load();
  save(undefined);
  if (!tokens) return;
  const revoke = (token: string, hint: string): Promise<Response> =>
    fetch(endpoint('/oauth/revoke'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ token, token_type_hint: hint, client_id: CLIENT_ID }).toString(),
    });
  await Promise.allSettled([revoke(tokens.refresh_token, 'refresh_token'), revoke(tokens.access_token, 'access_token')]);
}
