/**
 * The demo household's week of history (docs/design.md §7): on first start every gateway lock has a
 * week of taps and nightly battery readings, its card agrees with its history (locked, at the last
 * reading), and the history is written once — a restart on the same data folder adds nothing, and
 * time passing adds nothing (demo locks change only when driven).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_HISTORY_DAYS, demoHistoryEvents } from '../../../src/demo/demo-history.js';
import { ManualClock } from '../../support/manual-clock.js';
import { signInDemoUser } from '../../support/demo-process.js';
import { startTestService, type TestService } from '../../support/test-service.js';

interface EventBody {
  type: 'lock' | 'unlock' | 'battery' | 'ring';
  timestamp: string;
  value?: number;
  performer?: { id: string; name: string };
}

const DAY_MS = 86_400_000;

describe('the demo starts with a week of history', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ekey-demo-history-'));
  const clock = new ManualClock(Date.parse('2026-11-26T12:00:00Z'));
  let test: TestService;
  let token: string;

  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${test.baseUrl}${path}`, { headers: { accept: 'application/json', authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };
  const lockId = (name: string): string => test.demo.locks.find((lock) => lock.name === name)?.id ?? '';
  const history = async (name: string): Promise<{ lock_events: EventBody[]; metadata: { count: number } }> =>
    get(`/locks/${lockId(name)}/events?limit=200`);

  async function open(): Promise<void> {
    test = await startTestService({ dataDir, clock, demoHistory: true });
    token = (await signInDemoUser(test.baseUrl, test.demo)).access_token;
  }

  beforeAll(open, 60_000);
  afterAll(async () => {
    await test.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives each gateway lock taps by the owner and nightly battery readings over the past week', async () => {
    const owner = test.demo.users[0];
    for (const name of ['Front Door', 'Back Door']) {
      const page = await history(name);
      const taps = page.lock_events.filter((event) => event.type !== 'battery');
      const readings = page.lock_events.filter((event) => event.type === 'battery');
      expect(readings).toHaveLength(DEMO_HISTORY_DAYS);
      expect(taps.length).toBeGreaterThanOrEqual(2 * DEMO_HISTORY_DAYS);
      for (const tap of taps) expect(tap.performer).toEqual({ id: owner?.id, name: owner?.name });
      const times = page.lock_events.map((event) => Date.parse(event.timestamp));
      expect(Math.max(...times)).toBeLessThan(clock.now());
      expect(Math.min(...times)).toBeGreaterThanOrEqual(clock.now() - (DEMO_HISTORY_DAYS + 1) * DAY_MS);
      // Newest first; the battery drains, never rises.
      const levels = readings.map((event) => event.value ?? 0).reverse();
      expect([...levels].sort((a, b) => b - a)).toEqual(levels);
      expect(levels[0]).toBeGreaterThan(levels[levels.length - 1] ?? 1);
    }
    // The lock without a gateway connection has heard nothing, so it has no history.
    expect((await history('Garden Gate')).metadata.count).toBe(0);
  });

  it('gives Building Door (the Opener) a week of rings each answered by the owner opening, and no battery readings (it reports only a critical flag)', async () => {
    const owner = test.demo.users[0];
    const page = await history('Building Door');
    const rings = page.lock_events.filter((event) => event.type === 'ring');
    const opens = page.lock_events.filter((event) => event.type === 'unlock');
    expect(rings.length).toBeGreaterThanOrEqual(DEMO_HISTORY_DAYS);
    expect(opens).toHaveLength(rings.length);
    expect(page.lock_events.filter((event) => event.type === 'battery' || event.type === 'lock')).toEqual([]);
    for (const ring of rings) expect(ring.performer).toBeUndefined();
    for (const open of opens) expect(open.performer).toEqual({ id: owner?.id, name: owner?.name });
    // Oldest first: each ring is followed by its opening, within a minute.
    const ordered = [...page.lock_events].reverse();
    ordered.forEach((event, index) => {
      expect(event.type).toBe(index % 2 === 0 ? 'ring' : 'unlock');
      if (index % 2 === 1) expect(Date.parse(event.timestamp) - Date.parse(ordered[index - 1]?.timestamp ?? '')).toBeLessThan(60_000);
    });
  });

  it("shows each lock where its history ends: locked, at the last battery reading", async () => {
    const owner = test.demo.users[0];
    const { locks } = await get<{ locks: { id: string; name: string; bolt_state: string; battery_level: number | null }[] }>(`/users/${owner?.id ?? ''}/locks`);
    for (const name of ['Front Door', 'Back Door']) {
      const lock = locks.find((entry) => entry.name === name);
      const newestReading = (await history(name)).lock_events.find((event) => event.type === 'battery');
      expect(lock?.bolt_state).toBe('locked');
      expect(lock?.battery_level).toBe(newestReading?.value);
    }
  });

  it('writes it once: time passing and a restart on the same data add nothing', async () => {
    const counts = async (): Promise<number[]> => Promise.all(['Front Door', 'Back Door', 'Building Door'].map(async (name) => (await history(name)).metadata.count));
    const before = await counts();
    clock.advance(DAY_MS);
    await test.close();
    await open();
    expect(await counts()).toEqual(before);
  }, 60_000);

  it('is the same week on every run (no randomness), but for the ids', () => {
    const locks = [{ id: 'a', name: 'Front Door', zone: 'Europe/Berlin', ownerKeyId: 'k' }];
    const owner = { id: 'o', name: 'Olivia Owner' };
    const strip = (run: ReturnType<typeof demoHistoryEvents>) => run.events.map(({ id: _id, ...rest }) => rest);
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(strip(demoHistoryEvents(locks, owner, now))).toEqual(strip(demoHistoryEvents(locks, owner, now)));
    // On the lock's clock: the weekday routine's first tap is in the morning there.
    const first = demoHistoryEvents(locks, owner, now).events.find((event) => event.type === 'unlock');
    const hour = Number(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', hourCycle: 'h23' }).format(first?.occurredAt ?? 0));
    expect(hour).toBeGreaterThanOrEqual(7);
    expect(hour).toBeLessThan(11);
  });
});
