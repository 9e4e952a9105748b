import { escapeHtml, htmlPage, messagePage, rootOf } from './html-page.js';

/**
 * The pages of "Forgot your password?" (docs/design.md §9b), beside the sign-in page. They live at
 * two depths — `/password/forgot` and `/password/reset/{token}` — so every link and asset is
 * relative to the root each page gives (issue #32, finding 11: `../app/` from a reset link
 * pointed into `/password/`).
 */

/** The way back to the root from `/password/forgot`, and from `/password/reset/{token}`. */
const FORGOT_ROOT = rootOf('/password/forgot');
const RESET_ROOT = rootOf('/password/reset/token');

/** A link to the app from a page whose way back to the root is `root`, also behind a path prefix. */
const appLink = (root: string): string => `<p><a href="${root}app/">Back to the app</a></p>`;

/** The form asking for the address; without SMTP, the page that says whom to ask instead. */
export function renderForgotPage(canMail: boolean, error?: string): string {
  if (!canMail) {
    return htmlPage(
      'Forgot your password?',
      `<h1>Forgot your password?</h1>
<p>This service cannot send e-mail. Ask the person who runs it to set a new password for you; they can do it on the computer it runs on.</p>
${appLink(FORGOT_ROOT)}`,
    );
  }
  const alert = error === undefined ? '' : `<p class="error" role="alert" id="forgot-error">${escapeHtml(error)}</p>\n`;
  return htmlPage(
    'Forgot your password?',
    `<h1>Forgot your password?</h1>
<p>Enter the e-mail address of your account. We will send it a link to choose a new password.</p>
${alert}<form method="post" action="forgot">
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="email" required autofocus${error === undefined ? '' : ' aria-describedby="forgot-error"'}>
  <button type="submit">Send me a link</button>
</form>
${appLink(FORGOT_ROOT)}`,
  );
}

/** The same answer whether or not the address has an account. */
export function renderForgotSentPage(): string {
  return htmlPage(
    'Check your e-mail',
    `<h1>Check your e-mail</h1>
<p role="status">If an account has this address, a link to choose a new password is on its way. The link works once, for 30 minutes.</p>
${appLink(FORGOT_ROOT)}`,
  );
}

/** The form of an open reset link. */
export function renderResetPage(error?: string): string {
  const alert = error === undefined ? '' : `<p class="error" role="alert" id="reset-error">${escapeHtml(error)}</p>\n`;
  return htmlPage(
    'Choose a new password',
    `<h1>Choose a new password</h1>
${alert}<form method="post">
  <label for="password">New password (at least 8 characters)</label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required autofocus${error === undefined ? '' : ' aria-describedby="reset-error"'}>
  <button type="submit">Save the new password</button>
</form>`,
    RESET_ROOT,
  );
}

/** After the new password is saved. */
export function renderResetDonePage(email: string): string {
  return htmlPage(
    'Password changed',
    `<h1>Password changed</h1>
<p role="status">Sign in with ${escapeHtml(email)} and your new password. You were signed out everywhere else.</p>
${appLink(RESET_ROOT)}`,
    RESET_ROOT,
  );
}

/**
 * A link that is used, expired or unknown, or any other error of these pages, shown at `path`
 * (its links are relative to it).
 */
export function renderPasswordErrorPage(problem: { status: number; detail: string }, fromService: boolean, path: string): string {
  const root = rootOf(path);
  if (problem.status >= 500) return messagePage('Something went wrong', problem.detail, { root });
  if (problem.status === 429) return messagePage('Too many attempts', 'Please wait a minute and try again.', { root });
  if (!fromService) return messagePage('Invalid request', 'The form could not be read; please try again.', { root });
  return htmlPage(
    'Cannot change the password',
    `<h1>Cannot change the password</h1>
<p role="alert">${escapeHtml(problem.detail)}</p>
<p><a href="${root}password/forgot">Ask for a new link</a></p>`,
    root,
  );
}
