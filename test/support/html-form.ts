/** Posts an HTML form (urlencoded, redirects not followed) and asks for HTML, as a browser submits one. */
export function postForm(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams(fields).toString(),
  });
}
