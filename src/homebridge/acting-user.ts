import type { PortLock, LockPort } from '../lock-port/lock-port.js';

/**
 * Who a command from a home controller acts as (docs/design.md §5 and §5b): the user named by
 * `homekit.user_email`, else the lock's owner. HomeKit and Matter commands both go through this,
 * so they obey the same eKey rules and appear in the history with the same performer. Resolved
 * per command: a user created after start-up (an invitation) works without a restart. Null when
 * the configured user does not exist (the command is refused).
 */
export function actingUserResolver(port: LockPort, configuredEmail: string | undefined): (lock: PortLock) => string | null {
  return (lock) => (configuredEmail === undefined ? lock.ownerId : (port.resolveUser(configuredEmail)?.id ?? null));
}
