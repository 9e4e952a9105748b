import { describe, expect, it } from '@jest/globals';
import { isValidCodeVerifier, isValidS256Challenge, s256Challenge, verifyPkce } from '../../../src/auth/pkce.js';

// RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE (RFC 7636)', () => {
  it('derives the S256 challenge of the RFC example', () => {
    expect(s256Challenge(VERIFIER)).toBe(CHALLENGE);
  });

  it('accepts the matching verifier', () => {
    expect(verifyPkce(CHALLENGE, 'S256', VERIFIER)).toBe(true);
  });

  it.each([
    ['a missing verifier', 'S256', undefined],
    ['another valid verifier', 'S256', 'x'.repeat(43)],
        ['the plain method', 'plain', VERIFIER],
    ['no method', null, VERIFIER],
    ['a verifier with a character outside the alphabet', 'S256', `${VERIFIER.slice(0, 42)}!`],
  ])('rejects %s', (_label, method, verifier) => {
    expect(verifyPkce(CHALLENGE, method, verifier)).toBe(false);
  });

  it('bounds verifiers to 43..128 unreserved characters', () => {
    expect(isValidCodeVerifier('a'.repeat(42))).toBe(false);
    expect(isValidCodeVerifier('a'.repeat(43))).toBe(true);
    expect(isValidCodeVerifier('a-._~'.repeat(25) + 'abc')).toBe(true);
    expect(isValidCodeVerifier('a'.repeat(129))).toBe(false);
  });

  it('accepts only 43-character base64url challenges', () => {
    expect(isValidS256Challenge(CHALLENGE)).toBe(true);
    expect(isValidS256Challenge(`${CHALLENGE}=`)).toBe(false);
    expect(isValidS256Challenge(CHALLENGE.slice(1))).toBe(false);
    expect(isValidS256Challenge(`${CHALLENGE.slice(1)}+`)).toBe(false);
  });
});
