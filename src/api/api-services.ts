import type { EKeyService } from '../access/ekey-service.js';
import type { InvitationService } from '../access/invitation-service.js';
import type { LockService } from '../access/lock-service.js';
import type { SetupService } from '../access/setup-service.js';
import type { UserService } from '../access/user-service.js';
import type { PasswordService } from '../access/password-service.js';
import type { BearerAuthenticator } from '../auth/caller.js';
import type { OAuthService } from '../auth/oauth-service.js';
import type { EventQueryService } from '../events/event-query-service.js';
import type { EventStreamService } from '../events/event-stream-service.js';
import type { CommandEngine } from '../commands/command-engine.js';
import type { WebhookService } from '../webhooks/webhook-service.js';
import type { GatewayService } from '../access/gateway-service.js';
import type { CalendarService } from '../calendars/calendar-service.js';

/** Everything the HTTP layer may call. Routes translate; these services decide. */
export interface ApiServices {
  authenticator: BearerAuthenticator;
  oauth: OAuthService;
  users: UserService;
  /** eKeys: send, read, update, revoke (routes/ekeys.ts, routes/locks.ts). */
  ekeys: EKeyService;
  /** Lock lists and lock visibility (routes/locks.ts). */
  locks: LockService;
  /** Invitation sign-up (routes/invitations.ts). */
  invitations: InvitationService;
  /** Remote lock/unlock commands (routes/commands.ts). */
  commands: CommandEngine;
  /** Lock event history (routes/events.ts). */
  events: EventQueryService;
  /** Live lock events over SSE (routes/events.ts). */
  eventStreams: EventStreamService;
  /** Webhooks of lock owners (routes/webhooks.ts, docs/design.md §11). */
  webhooks: WebhookService;
  /** Password change, owner's reset and "Forgot your password?" (routes/password*.ts). */
  passwords: PasswordService;
  /** The Homebridge UI settings page's view and owner sign-up (routes/setup.ts). */
  setup: SetupService;
  /** Gateway devices: the host's adapter and the Bluetooth proxies (routes/gateways.ts). */
  gateways: GatewayService;
  /** Rental calendars whose stays become door codes (routes/calendars.ts). */
  calendars: CalendarService;
}
