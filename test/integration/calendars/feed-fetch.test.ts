/**
 * The calendar feed fetch (docs/design.md §12) against a real HTTP server on loopback: conditional
 * requests answered 304, redirects (3 followed, a 4th refused, none to another scheme), error
 * statuses, bodies over the limit (declared or streamed), an answer that never comes, a host that
 * refuses the connection — each failure one sentence, never the link.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FEED_LIMITS, fetchFeed, isFeedUrl } from '../../../src/calendars/feed-fetch.js';
import { FeedServer } from '../../support/feed-server.js';

const NO_VALIDATORS = { etag: null, lastModified: null };
const BODY = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n';

describe('fetching a calendar feed', () => {
  const server = new FeedServer();
  beforeAll(async () => {
    await server.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it('holds the limits of docs/design.md §12: 10 s, 3 redirects, 2 MB; only http and https links', () => {
    expect(FEED_LIMITS).toEqual({ timeoutMs: 10_000, maxRedirects: 3, maxBytes: 2 * 1024 * 1024 });
    expect(isFeedUrl('https://www.airbnb.com/calendar/ical/1.ics?s=x')).toBe(true);
    expect(isFeedUrl('http://192.168.1.20:8080/cal.ics')).toBe(true);
    for (const bad of ['ftp://example.com/cal.ics', 'file:///etc/passwd', 'webcal://example.com/cal.ics', 'not a link', '']) expect(isFeedUrl(bad)).toBe(false);
  });

  it('sends If-None-Match and If-Modified-Since from the last answer, and a 304 says nothing changed', async () => {
    server.serve('/etag.ics', { kind: 'feed', body: BODY, etag: '"v1"', lastModified: 'Mon, 10 Aug 2026 08:00:00 GMT' });
    const first = await fetchFeed(server.url('/etag.ics'), NO_VALIDATORS);
    expect(first).toEqual({ kind: 'body', text: BODY, validators: { etag: '"v1"', lastModified: 'Mon, 10 Aug 2026 08:00:00 GMT' } });
    const again = await fetchFeed(server.url('/etag.ics'), first.kind === 'body' ? first.validators : NO_VALIDATORS);
    expect(again).toEqual({ kind: 'not_modified' });
    expect(server.requestsFor('/etag.ics').map((request) => [request.ifNoneMatch, request.ifModifiedSince, request.status])).toEqual([
      [undefined, undefined, 200],
      ['"v1"', 'Mon, 10 Aug 2026 08:00:00 GMT', 304],
    ]);
    server.serve('/modified.ics', { kind: 'feed', body: BODY, lastModified: 'Tue, 11 Aug 2026 08:00:00 GMT' });
    expect(await fetchFeed(server.url('/modified.ics'), { etag: null, lastModified: 'Tue, 11 Aug 2026 08:00:00 GMT' })).toEqual({ kind: 'not_modified' });
  });

  it('follows up to 3 redirects and refuses a 4th, and a redirect to another scheme', async () => {
    server.serve('/final.ics', { kind: 'feed', body: BODY });
    server.serve('/r1', { kind: 'redirect', location: '/r2', status: 301 });
    server.serve('/r2', { kind: 'redirect', location: server.url('/r3'), status: 307 });
    server.serve('/r3', { kind: 'redirect', location: '/final.ics' });
    expect(await fetchFeed(server.url('/r1'), NO_VALIDATORS)).toMatchObject({ kind: 'body', text: BODY });
    server.serve('/r0', { kind: 'redirect', location: '/r1' });
    expect(await fetchFeed(server.url('/r0'), NO_VALIDATORS)).toEqual({ kind: 'failed', error: 'The link forwards more than 3 times.' });
    server.serve('/to-file', { kind: 'redirect', location: 'file:///etc/passwd' });
    expect(await fetchFeed(server.url('/to-file'), NO_VALIDATORS)).toEqual({ kind: 'failed', error: 'The link forwards to an address that is not http or https.' });
  });

  it('sends the user and password of a link as Basic authentication, to its own host only', async () => {
    server.serve('/private.ics', { kind: 'feed', body: BODY });
    const link = server.url('/private.ics').replace('http://', 'http://host%40home:s%3Acret@');
    expect(await fetchFeed(link, NO_VALIDATORS)).toMatchObject({ kind: 'body', text: BODY });
    expect(server.requestsFor('/private.ics').at(-1)?.authorization).toBe(`Basic ${Buffer.from('host@home:s:cret').toString('base64')}`);
    const elsewhere = new FeedServer();
    await elsewhere.start();
    try {
      elsewhere.serve('/moved.ics', { kind: 'feed', body: BODY });
      server.serve('/moves-away', { kind: 'redirect', location: elsewhere.url('/moved.ics') });
      expect(await fetchFeed(server.url('/moves-away').replace('http://', 'http://u:p@'), NO_VALIDATORS)).toMatchObject({ kind: 'body' });
      expect(server.requestsFor('/moves-away').at(-1)?.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
      expect(elsewhere.requestsFor('/moved.ics').at(-1)?.authorization).toBeUndefined();
    } finally {
      await elsewhere.close();
    }
  });

  it('an error status is a failure in plain words that says what to do', async () => {
    const words = async (status: number): Promise<unknown> => {
      server.serve('/broken.ics', { kind: 'status', status });
      return fetchFeed(server.url('/broken.ics'), NO_VALIDATORS);
    };
    expect(await words(500)).toEqual({ kind: 'failed', error: "The calendar's site had a problem; it is tried again in 10 minutes." });
    expect(await words(404)).toEqual({ kind: 'failed', error: "The calendar's site does not know this link (any more): copy the current export link from your listing." });
    expect(await words(403)).toEqual({ kind: 'failed', error: "The calendar's site refused the link: it may have been replaced. Copy the current export link from your listing." });
    expect(await words(418)).toEqual({ kind: 'failed', error: "The calendar's site answered with an error." });
  });

  it('refuses more than 2 MB, whether the length is declared or the body just keeps coming', async () => {
    server.serve('/declared.ics', { kind: 'huge', bytes: 2 * 1024 * 1024 + 1, declareLength: true });
    server.serve('/streamed.ics', { kind: 'huge', bytes: 3 * 1024 * 1024, declareLength: false });
    server.serve('/just-fits.ics', { kind: 'huge', bytes: 2 * 1024 * 1024, declareLength: false });
    expect(await fetchFeed(server.url('/declared.ics'), NO_VALIDATORS)).toEqual({ kind: 'failed', error: 'The calendar is larger than 2 MB.' });
    expect(await fetchFeed(server.url('/streamed.ics'), NO_VALIDATORS)).toEqual({ kind: 'failed', error: 'The calendar is larger than 2 MB.' });
    const fits = await fetchFeed(server.url('/just-fits.ics'), NO_VALIDATORS);
    expect(fits.kind === 'body' ? fits.text.length : fits).toBe(2 * 1024 * 1024);
  });

  it('gives up on a site that does not answer in time (here a 300 ms budget), and says so', async () => {
    server.serve('/silent.ics', { kind: 'silent' });
    const started = Date.now();
    expect(await fetchFeed(server.url('/silent.ics'), NO_VALIDATORS, { ...FEED_LIMITS, timeoutMs: 300 })).toEqual({
      kind: 'failed',
      error: "The calendar's site did not answer within 0.3 seconds.",
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('a host that refuses the connection is a failure that names the cause, not the link', async () => {
    const closed = new FeedServer();
    await closed.start();
    const url = closed.url('/gone.ics');
    await closed.close();
    const result = await fetchFeed(url, NO_VALIDATORS);
    expect(result).toEqual({ kind: 'failed', error: "The calendar's site could not be reached (ECONNREFUSED)." });
  });
});
