import type { InvitationState, InvitedKey } from '../access/invitation-service.js';
import type { FieldError } from '../domain/errors.js';
import { keyWindowText } from '../domain/time-words.js';
import { appLink, escapeHtml, htmlPage, messagePage } from './html-page.js';

/**
 * The pages of an invitation link (docs/design.md §3 eKeys, §7 "the guest's first minute"), beside
 * the sign-in page (authorize-page.ts). The page script (`invite.js`, html-page.ts) adds the web
 * app's authorization request to the sign-up form when the link carries none, so that signing up
 * ends signed in, in the app; without JavaScript the form works as before.
 */

export interface SignUpFormOptions {
  email: string;
  /** Who sent the invitation (their name), when known. */
  inviter: string | null;
  keys: InvitedKey[];
  /** The query string to post back with (keeps authorization parameters). */
  query: string;
  name?: string;
  errors?: FieldError[];
}

const TYPE_WORDS: Readonly<Record<InvitedKey['type'], string>> = {
  owner: 'an owner key',
  admin: 'an admin key (you may share keys too)',
  anytime: 'a key',
  scheduled: 'a key for set hours',
  guest: 'a guest key',
};

/** The sign-up form's fields in words (the service's field errors name `/name` and `/password`). */
const FIELD_WORDS: Readonly<Record<string, string>> = {
  '/name': 'Enter your name (at most 100 characters, on one line).',
  '/password': 'Choose a password of at least 8 characters.',
};

function keyItem(key: InvitedKey): string {
  const message = key.message === null || key.message.trim() === '' ? '' : `<blockquote>${escapeHtml(key.message)}</blockquote>`;
  return (
    `<li><strong>${escapeHtml(key.lock)}</strong>: ${escapeHtml(TYPE_WORDS[key.type])}` +
    `<br>It works ${escapeHtml(keyWindowText(key, key.zone))}.` +
    // docs/design.md §4c: the page says a door code waits in the app, never the code.
    (key.door_code ? '<br>It comes with a door code for the keypad at the door: you will find it in the app once you have signed up.' : '') +
    `${message}</li>`
  );
}

/** The sign-up form of an open invitation: who sent it, for which lock, their message, when the key works. */
export function renderSignUpPage(options: SignUpFormOptions): string {
  const who = options.inviter === null ? 'You have been sent' : `${escapeHtml(options.inviter)} has sent you`;
  const errors =
    options.errors === undefined || options.errors.length === 0
      ? ''
      : `<div class="error" role="alert" id="signup-error"><ul>${[...new Set(options.errors.map((error) => FIELD_WORDS[error.field] ?? 'Please check the form.'))]
          .map((text) => `<li>${escapeHtml(text)}</li>`)
          .join('')}</ul></div>\n`;
  const described = errors === '' ? '' : ' aria-describedby="signup-error"';
  return htmlPage(
    'Accept your eKey',
    `<h1>Accept your eKey</h1>
<p>${who} ${options.keys.length === 1 ? 'an eKey' : 'eKeys'}:</p>
<ul class="invite-facts">${options.keys.map(keyItem).join('')}</ul>
<p>Create your account for <strong>${escapeHtml(options.email)}</strong> to use it.</p>
${errors}<form method="post" action="${escapeHtml(options.query)}">
  <label for="name">Your name</label>
  <input id="name" name="name" type="text" autocomplete="name" maxlength="100" required autofocus value="${escapeHtml(options.name ?? '')}"${described}>
  <label for="password">Choose a password (at least 8 characters)</label>
  <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required${described}>
  <button type="submit">Create account and accept</button>
</form>`,
  );
}

/** An invitation that is no longer open (or never was): the page instead of the form, with the way on. */
export function renderInvitationStatePage(state: Exclude<InvitationState, { state: 'open' }>): string {
  switch (state.state) {
    case 'accepted':
      return htmlPage(
        'Invitation already accepted',
        `<h1>Invitation already accepted</h1>
<p data-accepted-invitation>This invitation has been used: the account of <strong>${escapeHtml(state.email)}</strong> exists. Sign in to use your keys.</p>
${appLink('Sign in to eKey Locks')}`,
      );
    case 'withdrawn':
      return htmlPage(
        'Invitation withdrawn',
        `<h1>Invitation withdrawn</h1>
<p>The key this invitation offered to <strong>${escapeHtml(state.email)}</strong> has been taken back, so there is nothing to accept. If you already have an account, sign in.</p>
${appLink('Sign in to eKey Locks')}`,
      );
    case 'expired':
      return messagePage('Invitation expired', 'This invitation link is too old: ask for the eKey to be sent again.', { link: 'Sign in to eKey Locks' });
    case 'unknown':
      return messagePage('Invitation not found', 'This invitation link is not valid: check that it was copied whole.', { link: 'Sign in to eKey Locks' });
  }
}

/** After a successful sign-up without an authorization request to continue with. */
export function renderSignedUpPage(email: string, acceptedKeys: number): string {
  const keys = acceptedKeys === 1 ? 'Your eKey is' : `Your ${acceptedKeys} eKeys are`;
  return htmlPage(
    'You are all set',
    `<h1>You are all set</h1>\n<p role="status">${escapeHtml(`${keys} ready. Sign in with ${email} and your new password.`)}</p>\n${appLink('Sign in to eKey Locks')}`,
  );
}

/** The invitation service's refusals in the guest's words, by problem code. */
const REFUSALS: Readonly<Record<string, { title: string; message: string }>> = {
  invitation_not_found: { title: 'Invitation not found', message: 'This invitation link is not valid: check that it was copied whole.' },
  invitation_expired: { title: 'Invitation expired', message: 'This invitation link is too old: ask for the eKey to be sent again.' },
  invitation_withdrawn: { title: 'Invitation withdrawn', message: 'The key this invitation offered has been taken back, so there is nothing to accept.' },
  invitation_used: { title: 'Invitation already accepted', message: 'This invitation has been used: sign in to use your keys.' },
};

/**
 * An error of the invitation pages, as classified by the API's one mapper (src/api/problem.ts), in
 * plain words (docs/design.md §7): never the service's wording, paths or HTTP words.
 */
export function renderInvitationErrorPage(problem: { status: number; detail: string; code?: string }, fromService: boolean): string {
  const { status } = problem;
  const link = { link: 'Sign in to eKey Locks' };
  // The API's one mapper already words these safely (a storage fault says that nothing was changed).
  if (status >= 500) return messagePage('Something went wrong', problem.detail);
  if (status === 429) return messagePage('Too many attempts', 'Please wait a minute and try again.');
  const known = fromService && problem.code !== undefined ? REFUSALS[problem.code] : undefined;
  if (known !== undefined) return messagePage(known.title, known.message, link);
  if (fromService && status === 410) return messagePage('Invitation expired', 'This invitation link is too old: ask for the eKey to be sent again.', link);
  if (fromService && status === 404) return messagePage('Invitation not found', 'This invitation link is not valid: check that it was copied whole.', link);
  return messagePage('Cannot accept the invitation', 'The form could not be read; please go back and try again.');
}
