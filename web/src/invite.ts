/**
 * The script of the service's own pages (sign-in, invitation, errors: src/auth/html-page.ts).
 * - The invitation sign-up form: when its link carries no authorization request, adds the web
 *   app's — with a fresh PKCE challenge — so that signing up ends signed in, in the app.
 * - Back into a page that is done with (the web app's sign-in form, an invitation already accepted)
 *   while this browser is signed in to the app: goes on to the app instead (docs/design.md §7).
 * - A sign-in form shown again after a failed attempt: its history entry becomes the form's plain
 *   address, so that Back and reload show the form rather than re-sending the attempt.
 * Without JavaScript every page works as before.
 */
import { CLIENT_ID, redirectUri } from './config.js';
import { newAuthorizationRequest } from './pkce.js';
import { isSignedIn } from './session.js';

const appUrl = (): string => new URL('../app/', location.href).toString();

/** The sign-in form of the authorization step, and whether it signs in to the web app. */
function signInForm(): { form: HTMLFormElement; forApp: boolean } | undefined {
  const form = document.querySelector<HTMLFormElement>('form[action="authorize"]');
  if (!form) return undefined;
  const client = form.querySelector<HTMLInputElement>('input[name="client_id"]')?.value.toLowerCase();
  return { form, forApp: client === CLIENT_ID };
}

async function enhanceSignUp(form: HTMLFormElement): Promise<void> {
  if (new URLSearchParams(location.search).has('client_id')) return;
  const button = form.querySelector('button');
  if (button) button.disabled = true;
  try {
    const params = await newAuthorizationRequest(CLIENT_ID, redirectUri());
    form.setAttribute('action', `?${params.toString()}`);
  } finally {
    if (button) button.disabled = false;
  }
}

function run(): void {
  const signIn = signInForm();
  const doneWith = (signIn?.forApp ?? false) || document.querySelector('[data-accepted-invitation]') !== null;
  if (doneWith && isSignedIn()) {
    location.replace(appUrl());
    return;
  }
  if (signIn) {
    // After a refused attempt the page is the answer to a POST: make its entry the form's GET address.
    const hidden = new URLSearchParams();
    for (const input of signIn.form.querySelectorAll<HTMLInputElement>('input[type="hidden"]')) hidden.set(input.name, input.value);
    const here = new URL(location.href);
    if (here.search === '' && hidden.has('client_id')) history.replaceState(null, '', `authorize?${hidden.toString()}`);
    return;
  }
  const signUp = document.querySelector<HTMLFormElement>('form[method="post"]');
  if (signUp) void enhanceSignUp(signUp);
}

run();
// Restored from the back-forward cache: the page's state may be stale, decide again.
addEventListener('pageshow', (event) => {
  if (event.persisted) run();
});
