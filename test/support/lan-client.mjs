#!/usr/bin/env node
// A client on another device of the home network (test/support/private-network.ts runs it in the
// "phone" namespace), or behind a TLS proxy. One command per run; prints one JSON line with what it saw.
//   get <url>                                   → {status, content_type, location, body}
//   send-ekey <json {base_url, client, email, password, lock_id, to}>
//                                               → signs in (authorization code) and sends an eKey: {status, body, callback}
// EKEY_RESOLVE="name=address" connects to `address` for `name` (TLS name and Host stay `name`), as
// curl --resolve does; HTTPS trusts the CA file in NODE_EXTRA_CA_CERTS as well as the usual ones.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { URLSearchParams } from 'node:url';

const [command, argument = ''] = process.argv.slice(2);
const [resolveName, resolveAddress] = (process.env.EKEY_RESOLVE ?? '').split('=');

/** One request; answers {status, headers, body}. Redirects are not followed. */
function send(url, { method = 'GET', headers = {}, body } = {}) {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const connectTo = target.hostname === resolveName ? resolveAddress : target.hostname;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      {
        host: connectTo,
        servername: target.hostname,
        port: target.port || (target.protocol === 'https:' ? 443 : 80),
        method,
        path: `${target.pathname}${target.search}`,
        headers: { host: target.host, ...headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function get(url) {
  const response = await send(url, { headers: { accept: 'text/html' } });
  return {
    status: response.status,
    content_type: response.headers['content-type'] ?? null,
    location: response.headers.location ?? null,
    body: response.body,
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
  const authorized = await send(`${base}/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const location = authorized.headers.location;
  if (authorized.status !== 302 || location === undefined) throw new Error(`sign-in answered ${authorized.status}: ${authorized.body}`);
  const code = new URL(location).searchParams.get('code');
  const json = { 'content-type': 'application/json', accept: 'application/json' };
  const tokenResponse = await send(`${base}/oauth/token`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ grant_type: 'authorization_code', client_id: client.client_id, client_secret: client.client_secret, code }),
  });
  const tokens = JSON.parse(tokenResponse.body);
  if (tokenResponse.status !== 200) throw new Error(`token exchange answered ${tokenResponse.status}: ${tokenResponse.body}`);
  const sent = await send(`${base}/ekey`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${tokens.access_token}` },
    body: JSON.stringify({ email: to, lock_id: lockId, type: 'anytime' }),
  });
  return { status: sent.status, body: JSON.parse(sent.body), callback: location };
}

try {
  const result = command === 'get' ? await get(argument) : command === 'send-ekey' ? await sendEKey(JSON.parse(argument)) : undefined;
  if (result === undefined) throw new Error(`unknown command ${command}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
