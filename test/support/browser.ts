/**
 * Debian's Chromium driven by playwright-core: pages that
 * record console errors, uncaught exceptions and CSP violations, so a test can fail on any of them.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

/** Where Debian puts Chromium (.ci/run installs it when missing). */
export function chromiumPath(): string {
  for (const candidate of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (candidate !== undefined && existsSync(candidate)) return candidate;
  }
  throw new Error('Chromium is not installed: apt-get install -y chromium (.ci/run does this).');
}

export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args });
}

export interface PageProblems {
  /** Console errors, uncaught exceptions and CSP violations, as text. */
  errors: string[];
  /** Responses of 400 and above, as `METHOD /path STATUS` (the console's "Failed to load resource" for them is not counted as an error). */
  failedRequests: string[];
}

/** A new context and page whose problems are recorded. */
export async function openPage(browser: Browser, options: BrowserContextOptions = {}): Promise<{ context: BrowserContext; page: Page; problems: PageProblems }> {
  const context = await browser.newContext(options);
  const problems: PageProblems = { errors: [], failedRequests: [] };
  // Run in the page before its own scripts (a string: this file is compiled without DOM types).
  await context.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (event) => { console.error('CSP violation: ' + event.violatedDirective + ' blocked ' + event.blockedURI); });",
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (!message.text().startsWith('Failed to load resource')) problems.errors.push(message.text());
  });
  page.on('pageerror', (error) => problems.errors.push(`uncaught: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.failedRequests.push(`${response.request().method()} ${new URL(response.url()).pathname} ${response.status()}`);
  });
  return { context, page, problems };
}
