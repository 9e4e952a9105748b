/**
 * Issue #32, finding 10 (docs/commands.md "Limits"): one guest queued 3,584 commands, and as many
 * events, in 5 s. Commands per user and lock, for everyone but the lock's owners: 10 at once, then
 * one every 6 s; past that 429 `command_rate_limited` problem+json with Retry-After. Real HTTP on
 * loopback against the demo's simulated Front Door; time moves on the service's manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startCommandFixture, untilOnline, type CommandFixture } from '../commands/command-fixture.js';

describe('commands per user and lock (finding 10)', () => {
  let fx: CommandFixture;

  /** Sends one command and waits for it to finish (so the per-lock queue never fills): the POST's status. */
  const command = async (token: string, lockId: string, type: string): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> => {
    const answer = await fx.call(token, 'POST', `/locks/${lockId}/commands`, { type });
    if (answer.status === 201) await fx.untilFinished(token, lockId, String(answer.body.id));
    return { status: answer.status, body: answer.body, retryAfter: answer.headers.get('retry-after') };
  };
  const send = async (email: string, lockId: string, type: string): Promise<void> => {
    const sent = await fx.call(fx.owner.token, 'POST', '/ekey', { email, lock_id: lockId, type });
    expect(sent.status).toBe(201);
  };

  beforeAll(async () => {
    fx = await startCommandFixture();
    await untilOnline(fx, fx.frontDoor);
    await untilOnline(fx, fx.backDoor);
    const emails = fx.test.demo.users.map((user) => user.email);
    await send(emails[1] ?? '', fx.frontDoor, 'anytime');
    await send(emails[1] ?? '', fx.backDoor, 'anytime');
    await send(emails[2] ?? '', fx.frontDoor, 'anytime');
  });

  afterAll(async () => {
    await fx.test.close();
  });

  it('lets a guest send 10 commands to a lock at once, then 429 with Retry-After until the bucket refills', async () => {
    const guest = fx.others[0];
    if (!guest) throw new Error('no guest');
    const statuses: number[] = [];
    for (let index = 0; index < 10; index += 1) statuses.push((await command(guest.token, fx.frontDoor, index % 2 === 0 ? 'unlock' : 'lock')).status);
    expect(statuses).toEqual(Array.from({ length: 10 }, () => 201));
    const refused = await command(guest.token, fx.frontDoor, 'unlock');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ status: 429, code: 'command_rate_limited' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(6);
    // Nothing was queued for the refused one.
    expect(fx.test.service.lockSubsystem.engine.pendingCount(fx.frontDoor)).toBe(0);

    // The same guest on another lock, another guest on this one: each has a bucket of its own.
    expect((await command(guest.token, fx.backDoor, 'unlock')).status).toBe(201);
    const other = fx.others[1];
    if (!other) throw new Error('no second guest');
    expect((await command(other.token, fx.frontDoor, 'lock')).status).toBe(201);

    // Six seconds on the service's clock give one more command, not two.
    fx.test.clock.advance(6_000);
    expect((await command(guest.token, fx.frontDoor, 'unlock')).status).toBe(201);
    expect((await command(guest.token, fx.frontDoor, 'lock')).status).toBe(429);
  });

  it('does not limit the lock’s owner', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 14; index += 1) statuses.push((await command(fx.owner.token, fx.frontDoor, index % 2 === 0 ? 'unlock' : 'lock')).status);
    expect(statuses.every((status) => status === 201)).toBe(true);
  });
});
