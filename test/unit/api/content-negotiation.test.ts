import { describe, expect, it } from '@jest/globals';
import { acceptsMediaType } from '../../../src/api/content-negotiation.js';

describe('acceptsMediaType', () => {
  const table: [accept: string | undefined, wanted: string, accepted: boolean][] = [
    [undefined, 'application/json', true],
    ['', 'application/json', true],
    ['   ', 'application/json', true],
    ['*/*', 'application/json', true],
    ['application/json', 'application/json', true],
    ['APPLICATION/JSON', 'application/json', true],
    ['application/*', 'application/json', true],
    ['application/problem+json', 'application/json', true],
    ['application/json; charset=utf-8', 'application/json', true],
    ['text/html, application/json;q=0.9', 'application/json', true],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json', true],
    ['text/html', 'application/json', false],
    ['text/plain', 'application/json', false],
    ['text/*', 'application/json', false],
    ['application/xml', 'application/json', false],
    ['application/json;q=0', 'application/json', false],
    ['application/json; q=0.0', 'application/json', false],
    ['*/*;q=0', 'application/json', false],
    ['text/html, */*;q=0', 'application/json', false],
    // The most specific matching range decides (RFC 9110 §12.5.1).
    ['application/json;q=0, */*', 'application/json', false],
    ['application/json;q=0, application/*', 'application/json', false],
    ['*/*;q=0, application/json', 'application/json', true],
    ['application/*;q=0, application/json;q=0.5', 'application/json', true],
    ['application/json;q=abc', 'application/json', true],
    ['text/html', 'text/html', true],
    ['text/*', 'text/html', true],
    ['application/json', 'text/html', false],
  ];

  it.each(table)('Accept %p for %s → %p', (accept, wanted, accepted) => {
    expect(acceptsMediaType(accept, wanted)).toBe(accepted);
  });
});
