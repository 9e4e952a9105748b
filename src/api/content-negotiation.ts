/**
 * Whether an Accept header admits a JSON response. A missing Accept means anything
 * (DESIGN §3 Paths and conventions); q=0 excludes a range.
 */
export function acceptsMediaType(accept: string | undefined, wanted: string): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  const [wantedType, wantedSubtype] = wanted.split('/');
  return accept.split(',').some((range) => {
    const [mediaRange = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const quality = params.find((param) => param.startsWith('q='));
    if (quality !== undefined && Number(quality.slice(2)) === 0) return false;
    const [type, subtype] = mediaRange.split('/');
    if (type === '*' && subtype === '*') return true;
    if (type !== wantedType) return false;
    return subtype === '*' || subtype === wantedSubtype || (wantedSubtype === 'json' && subtype === 'problem+json');
  });
}
