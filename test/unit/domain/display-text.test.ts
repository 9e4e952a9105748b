import { describe, expect, it } from '@jest/globals';
import { cleanDisplayText, deceptiveTextProblem } from '../../../src/domain/display-text.js';

describe('names shown to others (src/domain/display-text.ts)', () => {
  it.each([
    ['Alex Adams'],
    ['Zoë Ångström-Øberg'],
    ['Office 👩‍💻'],
    ['👨‍👩‍👧 family'],
    ['می‌خواهم'],
    ['日本語の名前'],
  ])('accepts %s', (text) => {
    expect(deceptiveTextProblem(text)).toBeNull();
    expect(cleanDisplayText(text)).toBe(text);
  });

  it.each([
    ['Cleaner \u202egnp.exe', 'U+202E', 'Cleaner gnp.exe'],
    ['\u2067Olivia\u2069', 'U+2067', 'Olivia'],
    ['ad\u200bmin', 'U+200B', 'admin'],
    ['ad\u200dmin', 'U+200D', 'admin'],
    ['ad\u200cmin', 'U+200C', 'admin'],
    ['\u200dOffice', 'U+200D', 'Office'],
    ['\ufeffBOM', 'U+FEFF', 'BOM'],
    ['soft\u00adhyphen', 'U+00AD', 'softhyphen'],
    ['Key \ud800', 'lone surrogate', 'Key '],
    ['Key \udc00x', 'lone surrogate', 'Key x'],
  ])('refuses %j (%s) and cleans it to %j', (text, problem, cleaned) => {
    expect(deceptiveTextProblem(text)).toContain(problem);
    expect(cleanDisplayText(text)).toBe(cleaned);
    expect(deceptiveTextProblem(cleanDisplayText(text))).toBeNull();
  });
});
