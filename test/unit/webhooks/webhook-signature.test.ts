/**
 * Standard Webhooks signatures (docs/design.md §11, docs/webhooks.md): held to the specification's
 * published test vectors (the vector every library of standard-webhooks/standard-webhooks tests,
 * and the Rust library's) and to the `standardwebhooks` library's own verification.
 */
import { describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { newDeliveryId, newWebhookSecret, signWebhook } from '../../../src/webhooks/webhook-signature.js';

describe('webhook signatures', () => {
  it('signs the specification\'s test vector exactly', () => {
    expect(signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
    expect(
      signWebhook('whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD', 'msg_27UH4WbU6Z5A5EzD8u03UvzRbpk', 1649367553, '{"email":"test@example.com","username":"test_user"}'),
    ).toBe('v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=');
  });

  it('differs from the vector\'s negative (a changed body or id is another signature)', () => {
    const signed = signWebhook('whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD', 'msg_27UH4WbU6Z5A5EzD8u03UvzRbpk', 1649367553, '{"email":"test@example.com","username":"test_user"}');
    expect(signed).not.toBe('v1,R3PTzyfHASBKHH98a7yexTwaJ4yNIcGhFQc1yuN+BPU=');
    expect(signWebhook('whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD', 'msg_27UH4WbU6Z5A5EzD8u03UvzRbpk', 1649367553, '{"email":"test@example.com","username":"test_user2"}')).not.toBe(signed);
  });

  it('makes secrets of 32 random bytes as whsec_ + base64, which the library accepts and verifies with', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
    const id = newDeliveryId();
    const timestamp = Math.floor(Date.now() / 1000);
    const body = '{"type":"lock.unlocked","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, id, timestamp, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('makes delivery ids without dots (the signed content joins id, timestamp and body with dots)', () => {
    for (let index = 0; index < 50; index += 1) expect(newDeliveryId()).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
  });
});
