/** Fixed by the service (src/auth/web-app-client.ts): the web app's public OAuth client. */
export const CLIENT_ID = '6f1c2b0e-4d7a-4e5b-9c3d-2a8e5f7b1c90';

/** `<origin>/app/callback`: registered origin-relative, so any address of the service works. */
export const redirectUri = (): string => `${location.origin}/app/callback`;
