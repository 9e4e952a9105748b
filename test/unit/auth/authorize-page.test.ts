import { describe, expect, it } from '@jest/globals';
import { renderErrorPage, renderLoginPage } from '../../../src/auth/authorize-page.js';
import { escapeHtml } from '../../../src/auth/html-page.js';

describe('the authorization page', () => {
  const params = { response_type: 'code', client_id: 'c1', redirect_uri: 'https://app.example/cb?a=1&b=2', state: '"><script>x</script>' };

  it('carries every parameter as an escaped hidden field', () => {
    const html = renderLoginPage({ clientName: 'App', params });
    expect(html).toContain('<input type="hidden" name="redirect_uri" value="https://app.example/cb?a=1&amp;b=2">');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('name="code_challenge"');
  });

  it('labels its fields and posts to the authorize endpoint', () => {
    const html = renderLoginPage({ clientName: 'App', params });
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<label for="email">');
    expect(html).toContain('<label for="password">');
    expect(html).toContain('autocomplete="current-password"');
    expect(html).toContain('<form method="post" action="authorize">');
  });

  it('announces a failed sign-in and keeps the e-mail, never the password', () => {
    const html = renderLoginPage({ clientName: '<App>', params, error: 'Wrong password', email: 'a@b.example' });
    expect(html).toContain('role="alert"');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('value="a@b.example"');
    expect(html).toContain('&lt;App&gt;');
    expect(html).toMatch(/<input id="password"[^>]*required aria-describedby/);
  });

  it('escapes error pages', () => {
    expect(renderErrorPage('Bad <b>', 'x & y')).toContain('<h1>Bad &lt;b&gt;</h1>');
    expect(escapeHtml(`'"&<>`)).toBe('&#39;&quot;&amp;&lt;&gt;');
  });
});
