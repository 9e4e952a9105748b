/** How closely a media range names a type: `*\/*` 0, `type/*` 1, `type/subtype` 2; -1 no match. */
function specificity(type: string | undefined, subtype: string | undefined, wantedType: string, wantedSubtype: string): number {
  if (type === '*' && subtype === '*') return 0;
  if (type !== wantedType) return -1;
  if (subtype === '*') return 1;
  // Errors are application/problem+json: a client that accepts only that still gets JSON answers.
  return subtype === wantedSubtype || (wantedSubtype === 'json' && subtype === 'problem+json') ? 2 : -1;
}

/**
 * Whether an Accept header admits a response of the `wanted` media type. A missing or empty
 * Accept means anything (docs/design.md §3 Paths and conventions). As RFC 9110 §12.5.1 says, the most
 * specific range that matches decides (`application/json;q=0, *\/*` refuses JSON), and q=0 refuses;
 * an unreadable q counts as 1.
 */
export function acceptsMediaType(accept: string | undefined, wanted: string): boolean {
  if (accept === undefined || accept === wanted || accept === '*/*' || accept.trim() === '') return true;
  const [wantedType = '', wantedSubtype = ''] = wanted.split('/');
  let best = -1;
  let quality = 0;
  for (const range of accept.split(',')) {
    const [mediaRange = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const [type, subtype] = mediaRange.split('/');
    const level = specificity(type, subtype, wantedType, wantedSubtype);
    if (level < 0 || level < best) continue;
    const q = params.find((param) => param.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    const rangeQuality = Number.isFinite(value) ? value : 1;
    // Equally specific ranges (e.g. application/json and application/problem+json): the best q.
    quality = level > best ? rangeQuality : Math.max(quality, rangeQuality);
    best = level;
  }
  return best >= 0 && quality > 0;
}
