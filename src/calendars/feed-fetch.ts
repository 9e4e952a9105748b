/**
 * Fetches a rental calendar's feed (docs/design.md §12): a conditional GET (`If-None-Match`,
 * `If-Modified-Since` from the last good answer), at most 10 s for the whole exchange, at most 3
 * redirects, at most 2 MB, `http` and `https` only — any host the service reaches (a feed on the
 * home network is fine: only lock owners add calendars). Never throws: a failure is a sentence for
 * the owner. The URL is a secret of its owner and never goes into a message or a log line.
 */

/** The validators of the last good answer. */
export interface FeedValidators {
  etag: string | null;
  lastModified: string | null;
}

export type FeedFetchResult =
  | { kind: 'not_modified' }
  | { kind: 'body'; text: string; validators: FeedValidators }
  | { kind: 'failed'; error: string };

export interface FeedLimits {
  timeoutMs: number;
  maxRedirects: number;
  maxBytes: number;
}

export const FEED_LIMITS: FeedLimits = { timeoutMs: 10_000, maxRedirects: 3, maxBytes: 2 * 1024 * 1024 };

/** Whether a link may be fetched at all: an absolute http or https URL. */
export function isFeedUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export async function fetchFeed(url: string, validators: FeedValidators, limits: FeedLimits = FEED_LIMITS): Promise<FeedFetchResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort();
  }, limits.timeoutMs);
  try {
    // A private feed may carry its user and password in the link (https://user:pass@host/…): sent as
    // Basic authentication, to that host only (a redirect elsewhere goes without them).
    const first = withoutCredentials(url);
    let current = first.url;
    for (let redirects = 0; ; redirects += 1) {
      const headers: Record<string, string> = { accept: 'text/calendar, text/plain;q=0.5, */*;q=0.1', 'user-agent': 'homebridge-ekey-locks calendar' };
      if (validators.etag !== null) headers['if-none-match'] = validators.etag;
      if (validators.lastModified !== null) headers['if-modified-since'] = validators.lastModified;
      if (first.authorization !== null && new URL(current).origin === new URL(first.url).origin) headers.authorization = first.authorization;
      const response = await fetch(current, { headers, redirect: 'manual', signal: controller.signal });
      if (response.status >= 300 && response.status < 400 && response.status !== 304) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        if (location === null) return { kind: 'failed', error: 'The calendar\'s site sent the request elsewhere without saying where.' };
        if (redirects >= limits.maxRedirects) return { kind: 'failed', error: `The link forwards more than ${limits.maxRedirects} times.` };
        const next = new URL(location, current).href;
        if (!isFeedUrl(next)) return { kind: 'failed', error: 'The link forwards to an address that is not http or https.' };
        current = next;
        continue;
      }
      if (response.status === 304) {
        await response.body?.cancel();
        return { kind: 'not_modified' };
      }
      if (!response.ok) {
        await response.body?.cancel();
        return { kind: 'failed', error: statusWords(response.status) };
      }
      const declared = Number(response.headers.get('content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        await response.body?.cancel();
        return { kind: 'failed', error: tooBig(limits) };
      }
      const text = await readAtMost(response, limits.maxBytes);
      if (text === null) return { kind: 'failed', error: tooBig(limits) };
      return { kind: 'body', text, validators: { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') } };
    }
  } catch (error) {
    if (controller.signal.aborted) return { kind: 'failed', error: `The calendar's site did not answer within ${Number((limits.timeoutMs / 1000).toFixed(1))} seconds.` };
    return { kind: 'failed', error: `The calendar's site could not be reached (${reasonOf(error)}).` };
  } finally {
    clearTimeout(timer);
  }
}

/** An error answer in plain words: what it likely means and what to do. */
function statusWords(status: number): string {
  if (status === 401 || status === 403) return 'The calendar\'s site refused the link: it may have been replaced. Copy the current export link from your listing.';
  if (status === 404 || status === 410) return 'The calendar\'s site does not know this link (any more): copy the current export link from your listing.';
  if (status >= 500) return 'The calendar\'s site had a problem; it is tried again in 10 minutes.';
  return 'The calendar\'s site answered with an error.';
}

/** The link without its user and password, and those as a Basic authorization (or null). */
function withoutCredentials(link: string): { url: string; authorization: string | null } {
  const parsed = new URL(link);
  if (parsed.username === '' && parsed.password === '') return { url: link, authorization: null };
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.href, authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` };
}

function tooBig(limits: FeedLimits): string {
  return `The calendar is larger than ${Math.round(limits.maxBytes / (1024 * 1024))} MB.`;
}

/** The body as UTF-8 text, or null once it passes `maxBytes`. */
async function readAtMost(response: Response, maxBytes: number): Promise<string | null> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = (await reader.read()) as { done: boolean; value: Uint8Array | undefined };
    if (done || value === undefined) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A short cause without the URL: the system's error code where there is one. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (error instanceof TypeError && error.message.toLowerCase().includes('invalid url')) return 'not a valid link';
  return 'network error';
}
