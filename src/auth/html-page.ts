/** The few HTML pages the service shows (sign-in, invitation sign-up, errors) share this frame. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and double-quoted attributes. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);

// Inline on purpose: the CSP allows inline styles and nothing else (no external resources).
const STYLE = `
  body { font-family: system-ui, sans-serif; background: #f4f5f7; color: #1d1d1f; margin: 0; }
  main { max-width: 24rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 0.75rem;
         box-shadow: 0 1px 4px rgba(0,0,0,.12); }
  h1 { font-size: 1.4rem; margin-top: 0; }
  label { display: block; margin-top: 1rem; font-weight: 600; }
  input[type=text], input[type=email], input[type=password] { width: 100%; box-sizing: border-box; padding: .6rem;
         margin-top: .3rem; font-size: 1rem; border: 1px solid #8a8a8e; border-radius: .4rem; }
  input:focus, button:focus { outline: 3px solid #0a66d8; outline-offset: 1px; }
  button { margin-top: 1.5rem; width: 100%; padding: .7rem; font-size: 1rem; border: 0; border-radius: .4rem;
           background: #0a58ca; color: #fff; cursor: pointer; }
  .error { background: #fdecea; color: #8a1c12; border: 1px solid #f5c2bd; padding: .75rem; border-radius: .4rem; }
`;

/**
 * A complete page; `title` is plain text (escaped here), `body` is trusted HTML built by the caller.
 * `script`: the path of a same-origin script to load (never inline), for a page whose CSP allows it.
 */
export function htmlPage(title: string, body: string, script?: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)} — eKey Locks</title>
<style>${STYLE}</style>
${script === undefined ? '' : `<script type="module" src="${escapeHtml(script)}"></script>\n`}</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** A page with a heading and one message, announced to screen readers. */
export const messagePage = (title: string, message: string): string =>
  htmlPage(title, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>`);
