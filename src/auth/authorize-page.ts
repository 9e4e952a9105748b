import type { AuthorizationParams } from './oauth-service.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and double-quoted attributes. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);

const STYLE = `
  body { font-family: system-ui, sans-serif; background: #f4f5f7; color: #1d1d1f; margin: 0; }
  main { max-width: 24rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 0.75rem;
         box-shadow: 0 1px 4px rgba(0,0,0,.12); }
  h1 { font-size: 1.4rem; margin-top: 0; }
  label { display: block; margin-top: 1rem; font-weight: 600; }
  input[type=email], input[type=password] { width: 100%; box-sizing: border-box; padding: .6rem; margin-top: .3rem;
         font-size: 1rem; border: 1px solid #8a8a8e; border-radius: .4rem; }
  input:focus, button:focus { outline: 3px solid #0a66d8; outline-offset: 1px; }
  button { margin-top: 1.5rem; width: 100%; padding: .7rem; font-size: 1rem; border: 0; border-radius: .4rem;
           background: #0a58ca; color: #fff; cursor: pointer; }
  .error { background: #fdecea; color: #8a1c12; border: 1px solid #f5c2bd; padding: .75rem; border-radius: .4rem; }
`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

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
 * The sign-in form of the authorization step (DESIGN §3). It posts back to `authorize`
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
  return page(
    'Sign in — eKey Locks',
    `<h1>Sign in</h1>
<p><strong>${escapeHtml(options.clientName)}</strong> would like to use your eKey Locks account.</p>
${error}<form method="post" action="authorize">
  ${hidden}
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(options.email ?? '')}"${described}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required${described}>
  <button type="submit">Sign in and allow</button>
</form>`,
  );
}

/**
 * An error the user must see in the browser because redirecting would be unsafe
 * (unknown client or unregistered redirect_uri, RFC 6749 §4.1.2.1).
 */
export function renderErrorPage(title: string, message: string): string {
  return page(`${title} — eKey Locks`, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>`);
}
