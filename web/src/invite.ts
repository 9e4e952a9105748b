/**
 * Loaded by the invitation sign-up page (src/api/routes/invitations.ts): when its link carries no
 * authorization request, adds the web app's — with a fresh PKCE challenge — to the form, so that
 * signing up ends signed in, in the app. Without it (no JavaScript) the form works as before.
 */
import { CLIENT_ID, redirectUri } from './config.js';
import { newAuthorizationRequest } from './pkce.js';

async function enhance(): Promise<void> {
  const form = document.querySelector('form');
  if (!form || new URLSearchParams(location.search).has('client_id')) return;
  const button = form.querySelector('button');
  if (button) button.disabled = true;
  try {
    const params = await newAuthorizationRequest(CLIENT_ID, redirectUri());
    form.setAttribute('action', `?${params.toString()}`);
  } finally {
    if (button) button.disabled = false;
  }
}

void enhance();
