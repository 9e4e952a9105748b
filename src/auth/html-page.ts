/**
 * The few HTML pages the service shows (sign-in, invitation sign-up, errors) share this frame and
 * the web app's look (docs/design.md §7): its stylesheet `pages.css` (fonts, colours, dark mode),
 * its icons and manifest, and its one page script `invite.js` — all same-origin files of the built
 * app, never inline scripts. Paths are relative (`../app/…`), so they also work behind a path
 * prefix: most pages live one folder below the root (`/oauth/…`, `/invitations/…`); a page deeper
 * down (`/password/reset/{token}`) passes its own way back to the root ({@link rootOf}).
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and double-quoted attributes. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);

/** The way back to the service's root from a page one folder below it (the default). */
const ONE_FOLDER_DOWN = '../';

/** The relative way back to the service's root from the page at `path` (`/password/reset/x` → `../../`). */
export function rootOf(path: string): string {
  const pathname = path.split(/[?#]/, 1)[0] ?? '/';
  const folders = Math.max(1, pathname.split('/').length - 2);
  return '../'.repeat(folders);
}

/** The web app's stable files the pages use (scripts/build-web.mjs writes them). */
const APP = 'app/';

/**
 * The policy of the service's pages: the app's stylesheet and script from this origin (no inline
 * script); no `form-action`, since the sign-in form's answer redirects to the client's redirect URI.
 */
export const SERVICE_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'";

/**
 * A complete page; `title` is plain text (escaped here), `body` is trusted HTML built by the caller.
 * `root`: the relative way back to the service's root (default `../`, see {@link rootOf}).
 */
export function htmlPage(title: string, body: string, root: string = ONE_FOLDER_DOWN): string {
  const app = `${root}${APP}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="theme-color" content="#0a58ca">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)} — eKey Locks</title>
<link rel="icon" href="${app}favicon.svg" type="image/svg+xml">
<link rel="apple-touch-icon" href="${app}icons/apple-touch-icon.png">
<link rel="manifest" href="${app}manifest.webmanifest">
<link rel="stylesheet" href="${app}pages.css">
<script type="module" src="${app}invite.js"></script>
</head>
<body>
<main>
<p class="brand"><img src="${app}favicon.svg" alt="" width="28" height="28">eKey Locks</p>
${body}
</main>
</body>
</html>
`;
}

/** A link to the web app, where one signs in (from a page one folder below the root unless `root` says otherwise). */
export const appLink = (text: string, root: string = ONE_FOLDER_DOWN): string => `<a class="button-link" href="${root}${APP}">${escapeHtml(text)}</a>`;

/** A page with a heading and one message, announced to screen readers; optionally a link to the app. */
export const messagePage = (title: string, message: string, options: { alert?: boolean; link?: string; root?: string } = {}): string =>
  htmlPage(
    title,
    `<h1>${escapeHtml(title)}</h1>\n<p${options.alert === false ? '' : ' role="alert" class="error"'}>${escapeHtml(message)}</p>` +
      (options.link === undefined ? '' : `\n${appLink(options.link, options.root)}`),
    options.root,
  );
