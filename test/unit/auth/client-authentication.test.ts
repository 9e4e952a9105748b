import { describe, expect, it } from '@jest/globals';
import { parseBasicCredentials, resolveClientCredentials } from '../../../src/auth/client-authentication.js';
import { OAuthError } from '../../../src/auth/oauth-error.js';
import { thrownError } from '../../support/thrown-error.js';

const basic = (raw: string): string => `Basic ${Buffer.from(raw, 'utf8').toString('base64')}`;

const thrown = (work: () => unknown): OAuthError => thrownError(OAuthError, work);

describe('parseBasicCredentials (RFC 6749 §2.3.1)', () => {
  it('reads id and secret', () => {
    expect(parseBasicCredentials(basic('my-client:s3cret'))).toEqual({ clientId: 'my-client', clientSecret: 's3cret' });
  });

  it('form-decodes both parts, so secrets may hold ":" "%" "+" and spaces', () => {
    expect(parseBasicCredentials(basic('id%3Awith+colon:a%3Ab%25c%2Bd+e'))).toEqual({ clientId: 'id:with colon', clientSecret: 'a:b%c+d e' });
  });

  it('splits at the first colon only', () => {
    expect(parseBasicCredentials(basic('id:se:cret'))).toEqual({ clientId: 'id', clientSecret: 'se:cret' });
  });

  it('matches the scheme case-insensitively', () => {
    expect(parseBasicCredentials(basic('id:secret').replace('Basic', 'bAsIc'))?.clientId).toBe('id');
  });

  it('ignores a missing header and other schemes', () => {
    expect(parseBasicCredentials(undefined)).toBeUndefined();
    expect(parseBasicCredentials('Bearer abc')).toBeUndefined();
  });

  it.each([
    ['no colon', basic('just-an-id')],
    ['an empty id', basic(':secret')],
    ['not base64', 'Basic ***'],
    ['a bare scheme', 'Basic'],
    ['a broken percent escape', basic('id:%zz')],
  ])('answers invalid_client with a Basic challenge for %s', (_label, header) => {
    const error = thrown(() => parseBasicCredentials(header));
    expect(error.error).toBe('invalid_client');
    expect(error.status).toBe(401);
    expect(error.headers['www-authenticate']).toMatch(/^Basic /);
  });
});

describe('resolveClientCredentials', () => {
  it('takes client_id and client_secret from the body', () => {
    expect(resolveClientCredentials({ clientId: 'id', clientSecret: 'secret' })).toEqual({ clientId: 'id', clientSecret: 'secret', method: 'body' });
  });

  it('lets a public client send client_id alone', () => {
    expect(resolveClientCredentials({ clientId: 'id' })).toEqual({ clientId: 'id', clientSecret: null, method: 'body' });
  });

  it('prefers Basic and accepts a repeated, identical client_id in the body', () => {
    expect(resolveClientCredentials({ authorization: basic('id:secret'), clientId: 'id' })).toEqual({
      clientId: 'id',
      clientSecret: 'secret',
      method: 'basic',
    });
  });

  it('refuses a body client_id that conflicts with Basic (invalid_request)', () => {
    const error = thrown(() => resolveClientCredentials({ authorization: basic('id:secret'), clientId: 'other' }));
    expect(error.error).toBe('invalid_request');
    expect(error.status).toBe(400);
  });

  it('refuses a body client_secret that conflicts with Basic (invalid_request)', () => {
    expect(thrown(() => resolveClientCredentials({ authorization: basic('id:secret'), clientSecret: 'other' })).error).toBe('invalid_request');
  });

  it('answers invalid_client when no client is identified at all', () => {
    const error = thrown(() => resolveClientCredentials({}));
    expect(error.error).toBe('invalid_client');
    expect(error.status).toBe(401);
  });

  it('refuses a secret without an id', () => {
    expect(thrown(() => resolveClientCredentials({ clientSecret: 'secret' })).error).toBe('invalid_request');
  });
});
