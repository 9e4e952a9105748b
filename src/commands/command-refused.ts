import { ServiceError } from '../domain/errors.js';
import type { CommandRefusal } from '../domain/lock-vocabulary.js';

/**
 * A command refused before it was queued. It carries the API's answer (status, code, problem
 * body: the central error handler maps it like every ServiceError) and the typed reason, which
 * every other caller (the lock port, so HomeKit and Matter) reads instead of decoding HTTP.
 */
export class CommandRefused extends ServiceError {
  constructor(
    readonly refusal: CommandRefusal,
    answer: ServiceError,
  ) {
    super(answer.status, answer.code, answer.message, answer.errors, answer.headers, answer.extensions);
  }
}
