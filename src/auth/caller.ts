/** Who is calling: established from a valid bearer token. */
export interface Caller {
  userId: string;
  clientId: string;
  /** Id of the access-token record (never the token itself). */
  tokenId: string;
}

/** Verifies the Authorization header of a request; throws a 401 ServiceError when it is not valid. */
export interface BearerAuthenticator {
  authenticate(authorizationHeader: string | undefined): Caller;
}
