/**
 * Names people choose (eKey names and messages, user names) are shown to other people: in key
 * lists, the history, invitations, HomeKit. Some characters make such a text lie about itself
 * (issue #32, finding 11): bidirectional controls reorder what follows them ("‮gnp.exe" reads as
 * "exe.png"), invisible characters make two different names look the same, and a lone surrogate
 * is not text at all (it breaks JSON consumers and databases downstream). Typed input with them
 * is refused (400, naming the field); names that come from the operator's config are cleaned.
 *
 * What is refused: every format character (Unicode category Cf — the bidi controls, zero-width
 * space, word joiner, BOM, soft hyphen, …) and lone surrogates. Two format characters are part of
 * real writing and stay allowed between two visible characters that are not ASCII: the zero-width
 * joiner U+200D (emoji sequences such as 👩‍💻) and the zero-width non-joiner U+200C (Persian,
 * Indic scripts); between ASCII letters they would only disguise a name.
 */

const FORMAT_CHARACTER = /\p{Cf}/u;
/** A surrogate that is not half of a pair (in `u` mode, a pair is one code point, never Cs). */
const LONE_SURROGATE = /\p{Cs}/u;
const JOINERS = new Set(['\u200c', '\u200d']);
/** A character a joiner may stand next to: visible, not ASCII, not itself a format character. */
const JOINABLE = /^[^\p{Cf}\p{White_Space}\p{Cc}\p{ASCII}]$/u;

/** Whether the joiner at `index` of `chars` stands between two joinable characters. */
function joinerInPlace(chars: readonly string[], index: number): boolean {
  const before = chars[index - 1];
  const after = chars[index + 1];
  return before !== undefined && after !== undefined && JOINABLE.test(before) && JOINABLE.test(after);
}

/** Why `text` may not be shown to others as it is, or null when it may. */
export function deceptiveTextProblem(text: string): string | null {
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (it contains a lone surrogate)';
  const chars = Array.from(text);
  for (const [index, char] of chars.entries()) {
    if (!FORMAT_CHARACTER.test(char)) continue;
    if (JOINERS.has(char) && joinerInPlace(chars, index)) continue;
    const code = char.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0') ?? '';
    return `must not contain invisible or direction-changing characters (U+${code})`;
  }
  return null;
}

/** `text` without what {@link deceptiveTextProblem} refuses (for names from the operator's config). */
export function cleanDisplayText(text: string): string {
  const chars = Array.from(text);
  return chars.filter((char, index) => !LONE_SURROGATE.test(char) && (!FORMAT_CHARACTER.test(char) || (JOINERS.has(char) && joinerInPlace(chars, index)))).join('');
}
