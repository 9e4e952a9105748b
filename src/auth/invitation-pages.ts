import type { FieldError } from '../domain/errors.js';
import { escapeHtml, htmlPage, messagePage } from './html-page.js';

/** The pages of an invitation link (DESIGN §3 eKeys), beside the sign-in page (authorize-page.ts). */

export interface SignUpFormOptions {
  email: string;
  locks: string[];
  /** The query string to post back with (keeps authorization parameters). */
  query: string;
  name?: string;
  errors?: FieldError[];
}

/**
 * The sign-up page may load one script of ours: the web app's `invite.js`, which — when the link
 * carries no authorization request — adds the web app's (with a fresh PKCE challenge), so that
 * signing up ends signed in, in the app (DESIGN §7). Without JavaScript the form works as before.
 */
export const SIGN_UP_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const INVITE_SCRIPT = '../app/invite.js';

/** The sign-up form of an open invitation, with the errors of a refused attempt. */
export function renderSignUpPage(options: SignUpFormOptions): string {
  const lockList = options.locks.length === 0 ? '' : ` for ${options.locks.map((name) => `<strong>${escapeHtml(name)}</strong>`).join(', ')}`;
  const errors =
    options.errors === undefined || options.errors.length === 0
      ? ''
      : `<div class="error" role="alert" id="signup-error"><ul>${options.errors
          .map((error) => `<li>${escapeHtml(`${error.field.replace(/^\//, '')} ${error.message}`)}</li>`)
          .join('')}</ul></div>\n`;
  const described = errors === '' ? '' : ' aria-describedby="signup-error"';
  return htmlPage(
    'Accept your eKey',
    `<h1>Accept your eKey</h1>
<p>You have been sent an eKey${lockList}. Create your account for <strong>${escapeHtml(options.email)}</strong> to use it.</p>
${errors}<form method="post" action="${escapeHtml(options.query)}">
  <label for="name">Your name</label>
  <input id="name" name="name" type="text" autocomplete="name" maxlength="100" required autofocus value="${escapeHtml(options.name ?? '')}"${described}>
  <label for="password">Choose a password (at least 8 characters)</label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required${described}>
  <button type="submit">Create account and accept</button>
</form>`,
    INVITE_SCRIPT,
  );
}

/** An invitation that is no longer open (or never was): the page instead of the form. */
export function renderInvitationStatePage(state: { state: 'accepted'; email: string } | { state: 'expired' | 'withdrawn' | 'unknown' }): string {
  switch (state.state) {
    case 'withdrawn':
      // Relative to /invitations/{token}: the app's sign-in, also behind a path prefix.
      return htmlPage(
        'Invitation withdrawn',
        `<h1>Invitation withdrawn</h1>
<p role="alert">This invitation was withdrawn: the eKey it was for is no longer offered, so no account can be made with it.</p>
<p>If you already have an account, <a href="../app/">sign in to the app</a>.</p>`,
      );
    case 'accepted':
      return messagePage('Invitation already accepted', `Your account exists: sign in with ${state.email} in your app.`);
    case 'expired':
      return messagePage('Invitation expired', 'Ask for the eKey to be sent again.');
    case 'unknown':
      return messagePage('Invitation not found', 'This invitation link is not valid.');
  }
}

/** After a successful sign-up without an authorization request to continue with. */
export function renderSignedUpPage(email: string, acceptedKeys: number): string {
  const keys = acceptedKeys === 1 ? 'Your eKey is' : `Your ${acceptedKeys} eKeys are`;
  return messagePage('You are all set', `${keys} ready. Sign in with ${email} and your new password in your app.`);
}

/**
 * An error of the invitation pages, as classified by the API's one mapper (src/api/problem.ts):
 * the service's own message where it has one, a form-minded one for a request it could not read.
 */
export function renderInvitationErrorPage(problem: { status: number; detail: string }, fromService: boolean): string {
  const { status } = problem;
  if (status >= 500) return messagePage('Something went wrong', problem.detail);
  if (fromService) {
    const title =
      status === 410 ? (problem.detail.includes('withdrawn') ? 'Invitation withdrawn' : 'Invitation expired') : status === 404 ? 'Invitation not found' : status === 429 ? 'Too many attempts' : 'Cannot accept the invitation';
    return messagePage(title, problem.detail);
  }
  return status === 429
    ? messagePage('Too many attempts', 'Please wait a minute and try again.')
    : messagePage('Invalid request', 'The form could not be read; please try again.');
}
