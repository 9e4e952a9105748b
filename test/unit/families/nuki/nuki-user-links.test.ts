import { describe, expect, it } from '@jest/globals';
import { nukiUserLinksOfEntry } from '../../../../src/families/nuki/nuki-user-links.js';

describe('nukiUserLinksOfEntry (config locks[].nuki_users, docs/design.md §4b)', () => {
  const base = { name: 'Back Door', family: 'nuki', address: '54:D2:72:AB:CD:EF', owner_email: 'olivia@example.com' };

  it('reads the map shape: authorization name → e-mail', () => {
    expect(nukiUserLinksOfEntry({ ...base, nuki_users: { "Olivia's iPhone": 'olivia@example.com', "Alex's Watch": 'alex@example.com' } })).toEqual(
      new Map([
        ["Olivia's iPhone", 'olivia@example.com'],
        ["Alex's Watch", 'alex@example.com'],
      ]),
    );
  });

  it('reads the list shape the Homebridge UI\'s form edits, to the same links', () => {
    const list = [
      { authorization: "Olivia's iPhone", email: 'olivia@example.com' },
      { authorization: "Alex's Watch", email: 'alex@example.com' },
    ];
    expect(nukiUserLinksOfEntry({ ...base, nuki_users: list })).toEqual(nukiUserLinksOfEntry({ ...base, nuki_users: { "Olivia's iPhone": 'olivia@example.com', "Alex's Watch": 'alex@example.com' } }));
  });

  it('has no links without nuki_users, and skips what is not a name and an e-mail', () => {
    expect(nukiUserLinksOfEntry(base).size).toBe(0);
    expect(nukiUserLinksOfEntry({ ...base, nuki_users: [{ authorization: 'A' }, { authorization: 'B', email: 'b@example.com' }, 7] })).toEqual(new Map([['B', 'b@example.com']]));
  });
});
