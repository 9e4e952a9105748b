import type { UserService } from '../access/user-service.js';
import type { BearerAuthenticator } from '../auth/caller.js';
import type { OAuthService } from '../auth/oauth-service.js';

/** Everything the HTTP layer may call. Routes translate; these services decide. */
export interface ApiServices {
  authenticator: BearerAuthenticator;
  oauth: OAuthService;
  users: UserService;
}
