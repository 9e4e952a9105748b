/**
 * Debian's Chromium driven by playwright-core: pages that
 * record console errors, uncaught exceptions and CSP violations, so a test can fail on any of them.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';

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

/**
 * Signs in through the web app at `url` as a person does: its Sign in button, the service's
 * sign-in page, "Sign in and allow"; then waits (15 s) for "Your locks" unless `waitForLocks` is
 * false (for a sign-in the test follows itself).
 */
export async function signInToApp(page: Page, url: string, user: { email: string; password: string }, options: { waitForLocks?: boolean } = {}): Promise<void> {
  await page.goto(url);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in and allow', exact: true }).click();
  if (options.waitForLocks ?? true) await page.getByRole('heading', { name: 'Your locks' }).waitFor({ timeout: 15_000 });
}

/** The little of the DOM the helpers below use (this file compiles without the DOM's types). */
interface ElementLike {
  classList: { contains(name: string): boolean };
  getBoundingClientRect(): { top: number; bottom: number; left: number; right: number; width: number; height: number };
}
interface WindowLike {
  innerHeight: number;
  getComputedStyle(element: unknown): { getPropertyValue(name: string): string };
  document: { createElement(tag: string): ElementLike & { textContent: string; style: { font: string }; remove(): void }; body: { append(node: unknown): void } };
}

/** A computed CSS property of the element (`color`, `border-left-width`, …). */
export const computedStyle = (locator: Locator, property: string): Promise<string> =>
  locator.evaluate((element, name) => (globalThis as unknown as WindowLike).getComputedStyle(element).getPropertyValue(name), property);

export const hasClass = (locator: Locator, name: string): Promise<boolean> => locator.evaluate((element: ElementLike, wanted) => element.classList.contains(wanted), name);

/** The element's box in the viewport. */
export const boxOf = (locator: Locator): Promise<{ top: number; bottom: number; left: number; right: number; width: number; height: number }> =>
  locator.evaluate((element: ElementLike) => {
    const box = element.getBoundingClientRect();
    return { top: box.top, bottom: box.bottom, left: box.left, right: box.right, width: box.width, height: box.height };
  });

/** Whether the element is whole in the viewport's height. */
export const inViewport = (locator: Locator): Promise<boolean> =>
  locator.evaluate((element: ElementLike) => {
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= (globalThis as unknown as WindowLike).innerHeight;
  });

/** Whether a field is wide enough for `text` in its own font, plus `extra` pixels (a picker's icon, padding). */
export const fitsText = (locator: Locator, text: string, extra: number): Promise<boolean> =>
  locator.evaluate(
    (element: ElementLike, [sample, room]) => {
      const page = globalThis as unknown as WindowLike;
      const probe = page.document.createElement('span');
      probe.textContent = sample;
      probe.style.font = page.getComputedStyle(element).getPropertyValue('font');
      page.document.body.append(probe);
      const needed = probe.getBoundingClientRect().width + room;
      probe.remove();
      return element.getBoundingClientRect().width >= needed;
    },
    [text, extra] as const,
  );
