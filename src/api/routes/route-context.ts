import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Caller } from '../../auth/caller.js';
import type { Logger } from '../../logger.js';
import type { ApiServices } from '../api-services.js';

/** The Fastify instance type routes register on (TypeBox-typed). */
export type TypedFastify = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface RouteContext {
  app: TypedFastify;
  services: ApiServices;
  logger: Logger;
}

export interface ProtectedRouteContext extends RouteContext {
  /** The authenticated caller; protected routes always have one. */
  callerOf: (request: FastifyRequest) => Caller;
}
