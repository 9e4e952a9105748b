/**
 * Why a connection to a proxy's native API failed or ended. `wrong_key`, `key_required`,
 * `not_encrypted` and `password_required` are the proxy refusing us for our configuration: the
 * proxy's state is then `unauthorized` (docs/design.md §4e), retried slowly.
 */
export type EsphomeApiFailure =
  /** TCP could not connect (refused, no route, name not found) or did not within its budget. */
  | 'unreachable'
  /** Noise: the proxy could not verify our first message: the keys differ. */
  | 'wrong_key'
  /** The proxy speaks Noise and no key is configured. */
  | 'key_required'
  /** A key is configured and the proxy speaks plaintext. */
  | 'not_encrypted'
  /** Old firmware with an API password (removed in ESPHome 2026.1): we have none to give. */
  | 'password_required'
  /** The proxy answered something the protocol does not allow, or not in time during set-up. */
  | 'protocol'
  /** The connection ended (the proxy closed it, the socket broke, or we closed it). */
  | 'closed';

export class EsphomeApiError extends Error {
  constructor(
    readonly failure: EsphomeApiFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EsphomeApiError';
  }

  /** The proxy refused us for our configuration (key or password), not for a passing fault. */
  get refusesUs(): boolean {
    return this.failure === 'wrong_key' || this.failure === 'key_required' || this.failure === 'not_encrypted' || this.failure === 'password_required';
  }
}
