/** How a request of our profile ended, seen from the gateway. */
export type EKeyAnswer<Response> =
  /** The lock answered, authenticated. */
  | { kind: 'response'; response: Response }
  /** An answer for this request arrived but failed authentication (wrong key?). */
  | { kind: 'unauthenticated' }
  /** The link dropped before the answer. */
  | { kind: 'link_lost' };

/**
 * The one outstanding request of a kind (Control Point or Credentials) and the answer it waits
 * for. Requests of a kind never overlap: the core's queue runs one exchange at a time.
 */
export class EKeyAnswerSlot<Response> {
  private pending: { requestId: number; counter: bigint; settle: (answer: EKeyAnswer<Response>) => void } | null = null;

  /** Opens the slot for one request; the promise settles with its answer. */
  open(requestId: number, counter: bigint): Promise<EKeyAnswer<Response>> {
    return new Promise((resolve) => {
      this.pending = { requestId, counter, settle: resolve };
    });
  }

  /** Closes the slot (the exchange is over). */
  close(): void {
    this.pending = null;
  }

  /** The request id the slot waits for, if any. */
  get requestId(): number | undefined {
    return this.pending?.requestId;
  }

  /** Delivers an authenticated answer when it belongs to the open request (old or replayed answers are ignored). */
  deliver(requestId: number, requestCounter: bigint, response: Response): void {
    const pending = this.pending;
    if (pending === null || pending.requestId !== requestId || pending.counter !== requestCounter) return;
    pending.settle({ kind: 'response', response });
  }

  /** An answer for the open request that failed authentication. */
  unauthenticated(requestId: number | undefined): void {
    if (this.pending !== null && requestId === this.pending.requestId) this.pending.settle({ kind: 'unauthenticated' });
  }

  /** The link dropped. */
  linkLost(): void {
    this.pending?.settle({ kind: 'link_lost' });
  }
}
