/**
 * The web app's OAuth client (docs/design.md §7): a first-party public client the service registers
 * itself on every start. Its redirect URI is origin-relative — `/app/callback` on whichever address
 * the browser reached the service by (loopback, a LAN address, `homebridge.local`) — since the
 * authorization page is served from that same origin, sending the code back there reveals it to no
 * one else. Public: no secret, PKCE (S256) required.
 */
import type { ClientRecord, ClientRepository } from '../store/client-repository.js';

/** Fixed, so the app (built once, served by every installation) knows it. */
export const WEB_APP_CLIENT_ID = '6f1c2b0e-4d7a-4e5b-9c3d-2a8e5f7b1c90';
export const WEB_APP_REDIRECT_PATH = '/app/callback';
export const WEB_APP_CLIENT_NAME = 'eKey Locks web app';

/** Inserts or refreshes the web app's client. */
export function registerWebAppClient(clients: ClientRepository, now: number): void {
  const existing = clients.findById(WEB_APP_CLIENT_ID);
  const client: ClientRecord = {
    id: WEB_APP_CLIENT_ID,
    name: WEB_APP_CLIENT_NAME,
    secretHash: null,
    isPublic: true,
    redirectUris: [WEB_APP_REDIRECT_PATH],
    createdAt: existing?.createdAt ?? now,
  };
  clients.upsert(client);
}

/**
 * Whether `redirectUri` is one of `registered`: equal by simple string comparison (RFC 6749
 * §3.1.2.3), or — for a registered path (starting with `/`) — that path on `requestOrigin`, the
 * origin the authorization request itself arrived on.
 */
export function isRegisteredRedirect(registered: readonly string[], redirectUri: string, requestOrigin: string | undefined): boolean {
  if (registered.includes(redirectUri)) return true;
  if (requestOrigin === undefined) return false;
  return registered.some((uri) => uri.startsWith('/') && redirectUri === `${requestOrigin}${uri}`);
}
