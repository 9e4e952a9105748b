import type { Migration } from '../migration.js';
import { usersAndOauth } from './001-users-and-oauth.js';
import { locksAndEkeys } from './002-locks-and-ekeys.js';
import { commands } from './003-commands.js';
import { lockEvents } from './004-events.js';

/**
 * Every schema step, in order. Append new steps; never edit one that has shipped.
 * Reserved: 3 = commands, 4 = lock events.
 */
export const migrations: readonly Migration[] = [usersAndOauth, locksAndEkeys, commands, lockEvents];
