#!/usr/bin/env node
/* global fetch, URLSearchParams */
// A client on another device of the home network (test/support/private-network.ts runs it in the
// "phone" namespace). One command per run; prints one JSON line with what it saw.
//   get <url>                                   → {status, content_type, location, body}
//   send-ekey <json {base_url, client, email, password, lock_id, to}>
//                                               → signs in (authorization code) and sends an eKey: {status, body}

const [command, argument = ''] = process.argv.slice(2);

async function get(url) {
  const response = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
  return {
    status: response.status,
    content_type: response.headers.get('content-type'),
    location: response.headers.get('location'),
    body: await response.text(),
  };
}

async function sendEKey({ base_url: base, client, email, password, lock_id: lockId, to }) {
  const form = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: client.redirect_uri,
    state: 'lan',
    email,
    password,
  });
  const authorized = await fetch(`${base}/oauth/authorize`, { method: 'POST', body: form, redirect: 'manual' });
  const location = authorized.headers.get('location');
  if (authorized.status !== 302 || location === null) throw new Error(`sign-in answered ${authorized.status}: ${await authorized.text()}`);
  const code = new URL(location).searchParams.get('code');
  const tokenResponse = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ grant_type: 'authorization_code', client_id: client.client_id, client_secret: client.client_secret, code }),
  });
  const tokens = await tokenResponse.json();
  if (tokenResponse.status !== 200) throw new Error(`token exchange answered ${tokenResponse.status}: ${JSON.stringify(tokens)}`);
  const sent = await fetch(`${base}/ekey`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email: to, lock_id: lockId, type: 'anytime' }),
  });
  return { status: sent.status, body: await sent.json() };
}

try {
  const result = command === 'get' ? await get(argument) : command === 'send-ekey' ? await sendEKey(JSON.parse(argument)) : undefined;
  if (result === undefined) throw new Error(`unknown command ${command}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
