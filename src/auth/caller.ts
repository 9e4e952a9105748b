/** Who is calling: established from a valid bearer token. */
export interface Caller {
  userId: string;
  clientId: string;
  /** Id of the access-token record (never the token itself). */
  tokenId: string;
  /** The token family (one sign-in and its refreshes): the caller's session. */
  familyId: string;
  /** SHA-256 of the access token (what the store keeps), to check it again later. */
  tokenHash: string;
  /** When the access token expires (epoch ms), or null when it does not. */
  expiresAt: number | null;
}

/** Verifies the Authorization header of a request; throws a 401 ServiceError when it is not valid. */
export interface BearerAuthenticator {
  authenticate(authorizationHeader: string | undefined): Caller;
  /**
   * Whether the caller's access token is still good now (not revoked, not expired): asked by
   * long-lived responses (the event stream) that outlive the request's own check.
   */
  stillValid(caller: Caller): boolean;
}
