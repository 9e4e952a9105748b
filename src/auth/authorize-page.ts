import type { AuthorizationParams } from './oauth-service.js';
import { escapeHtml, htmlPage, messagePage } from './html-page.js';

/** The parameters carried through the login form, in a stable order. */
const HIDDEN_FIELDS: readonly (keyof AuthorizationParams)[] = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'code_challenge',
  'code_challenge_method',
];

export interface LoginPageOptions {
  /** Display name of the client application asking for access. */
  clientName: string;
  params: AuthorizationParams;
  /** Pre-filled e-mail after a failed attempt (never the password). */
  email?: string;
  /** Shown above the form, announced to screen readers. */
  error?: string;
}

/**
 * The sign-in form of the authorization step (docs/design.md §3). It posts back to `authorize`
 * (relative, so it works behind a path prefix) with the request's parameters as hidden fields.
 */
export function renderLoginPage(options: LoginPageOptions): string {
  const hidden = HIDDEN_FIELDS.flatMap((name) => {
    const value = options.params[name];
    return value === undefined ? [] : [`<input type="hidden" name="${name}" value="${escapeHtml(value)}">`];
  }).join('\n  ');
  const error =
    options.error === undefined ? '' : `<p class="error" role="alert" id="login-error">${escapeHtml(options.error)}</p>\n`;
  const described = options.error === undefined ? '' : ' aria-describedby="login-error" aria-invalid="true"';
  return htmlPage(
    'Sign in',
    `<h1>Sign in</h1>
<p><strong>${escapeHtml(options.clientName)}</strong> would like to use your eKey Locks account.</p>
${error}<form method="post" action="authorize">
  ${hidden}
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(options.email ?? '')}"${described}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required${described}>
  <button type="submit">Sign in and allow</button>
</form>
<p><a href="../password/forgot">Forgot your password?</a></p>`,
  );
}

/**
 * An error the user must see in the browser because redirecting would be unsafe
 * (unknown client or unregistered redirect_uri, RFC 6749 §4.1.2.1).
 */
export function renderErrorPage(title: string, message: string): string {
  return messagePage(title, message);
}
