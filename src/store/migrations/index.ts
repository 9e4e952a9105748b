import type { Migration } from '../migration.js';
import { usersAndOauth } from './001-users-and-oauth.js';
import { locksAndEkeys } from './002-locks-and-ekeys.js';
import { commands } from './003-commands.js';
import { lockEvents } from './004-events.js';
import { lockFamily } from './005-lock-family.js';
import { lockRetirement } from './006-lock-retirement.js';
import { lockFamilyRegistry } from './007-lock-family-registry.js';
import { security } from './008-security.js';
import { doorCodes } from './009-door-codes.js';
import { nukiCommandsAndEvents } from './010-nuki-commands-and-events.js';
import { keypadRefusalsAndOpenerModes } from './011-keypad-refusals-and-opener-modes.js';
import { webhooks } from './012-webhooks.js';
import { calendars } from './013-calendars.js';

/**
 * Every schema step, in order. Append new steps; never edit one that has shipped.
 * Reserved: 3 = commands, 4 = lock events, 5 = lock family, 6 = lock retirement, 7 = lock family
 * registry, 8 = security (closed invitations, password resets), 9 = door codes, 10 = Nuki commands
 * and events (unlatch, the Opener), 11 = keypad refusals and Opener modes (issue #32), 12 = webhooks
 * (issue #35), 13 = calendars and bookings (issue #36).
 */
export const migrations: readonly Migration[] = [
  usersAndOauth,
  locksAndEkeys,
  commands,
  lockEvents,
  lockFamily,
  lockRetirement,
  lockFamilyRegistry,
  security,
  doorCodes,
  nukiCommandsAndEvents,
  keypadRefusalsAndOpenerModes,
  webhooks,
  calendars,
];
