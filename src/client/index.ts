/** The typed REST client of the eKey Locks service. */
export { EKeyLocksClient, type AccessTokenSource, type EKeyLocksClientOptions } from './ekey-locks-client.js';
export { ApiError } from './api-error.js';
export type { EKey, EKeyStatus, EKeyType, Lock, Problem, SendEKeyRequest, UpdateEKeyRequest, User } from './api-types.js';
