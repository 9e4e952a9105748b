import type { DemoHousehold } from '../demo/demo-household.js';

/**
 * Signs a demo user in over HTTP exactly as a client app does: posts the sign-in form of
 * `/oauth/authorize`, takes the code from the 302 Location, exchanges it at `/oauth/token`.
 * Returns the access token.
 */
export async function loginDemoUser(baseUrl: string, demo: DemoHousehold, userIndex: number): Promise<string> {
  const user = demo.users[userIndex];
  const client = demo.clients[0];
  if (!user || !client) throw new Error(`the demo household has no user #${userIndex} or no client`);
  const state = `bench-${Date.now()}`;
  const form = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: client.redirect_uri,
    state,
    email: user.email,
    password: user.password,
  });
  const authorization = await fetch(`${baseUrl}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: form.toString(),
  });
  await authorization.arrayBuffer();
  const location = authorization.headers.get('location');
  const code = location === null ? null : new URL(location).searchParams.get('code');
  if (authorization.status !== 302 || code === null) throw new Error(`sign-in failed: HTTP ${authorization.status}`);

  const token = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ grant_type: 'authorization_code', code, client_id: client.client_id, client_secret: client.client_secret }),
  });
  const body = (await token.json()) as { access_token?: unknown };
  if (token.status !== 200 || typeof body.access_token !== 'string') throw new Error(`token exchange failed: HTTP ${token.status}`);
  return body.access_token;
}
