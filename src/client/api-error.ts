import type { Problem } from './api-types.js';

/** A non-2xx answer of the API; `problem` holds the problem+json body when there was one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(problem ? `${status} ${problem.code}: ${problem.detail}` : `HTTP ${status}`);
    this.name = 'ApiError';
  }

  /** The stable error code (e.g. `ekey_quota_exhausted`), or undefined without a problem body. */
  get code(): string | undefined {
    return this.problem?.code;
  }
}
