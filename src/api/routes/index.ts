import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../../domain/errors.js';
import type { Caller } from '../../auth/caller.js';
import type { Logger } from '../../logger.js';
import type { ApiServices } from '../api-services.js';
import { ProblemSchema } from '../schemas/common.js';
import { UserSchema } from '../schemas/user.js';
import { DoorCodeSchema, EKeySchema } from '../schemas/ekey.js';
import { LockSchema } from '../schemas/lock.js';
import type { TypedFastify } from './route-context.js';
import { registerOAuthRoutes } from './oauth.js';
import { registerOAuthMetadataRoute } from './oauth-metadata.js';
import { registerUserRoutes } from './users.js';
import { registerEventRoutes } from './events.js';
import { LockEventSchema } from '../schemas/event.js';
import { registerEKeyRoutes } from './ekeys.js';
import { registerLockRoutes } from './locks.js';
import { registerInvitationRoutes } from './invitations.js';
import { registerSetupRoutes } from './setup.js';
import { registerCommandRoutes } from './commands.js';
import { LockCommandSchema } from '../schemas/command.js';
import { OwnEKeySchema } from '../schemas/own-ekey.js';
import { registerUserEKeyRoutes } from './user-ekeys.js';
import { registerPasswordRoutes } from './password.js';
import { registerPasswordPages } from './password-pages.js';
import { registerWebhookRoutes } from './webhooks.js';
import { CreatedWebhookSchema, WebhookDeliverySchema, WebhookSchema } from '../schemas/webhook.js';
import { registerGatewayRoutes } from './gateways.js';
import { GatewaySchema } from '../schemas/gateway.js';
import { registerCalendarRoutes } from './calendars.js';
import { CalendarSchema } from '../schemas/calendar.js';

export interface RouteOptions {
  services: ApiServices;
  logger: Logger;
  oauthRateLimitPerMinute: number;
}

const callerOf = (request: FastifyRequest): Caller => {
  if (!request.caller) throw unauthorized();
  return request.caller;
};

/**
 * The route map: public OAuth routes, then every protected resource behind one bearer check.
 * Add a resource by writing `routes/<resource>.ts` and listing it here.
 */
export async function registerRoutes(app: TypedFastify, options: RouteOptions): Promise<void> {
  const { services, logger } = options;
  app.addSchema(ProblemSchema);
  app.addSchema(UserSchema);
  app.addSchema(LockEventSchema);
  app.addSchema(LockCommandSchema);
  app.addSchema(DoorCodeSchema);
  app.addSchema(EKeySchema);
  app.addSchema(LockSchema);
  app.addSchema(OwnEKeySchema);
  app.addSchema(WebhookSchema);
  app.addSchema(CreatedWebhookSchema);
  app.addSchema(WebhookDeliverySchema);
  app.addSchema(GatewaySchema);
  app.addSchema(CalendarSchema);

  await app.register(async (scope) => {
    await registerOAuthRoutes({ app: scope, services, logger }, options.oauthRateLimitPerMinute);
  });

  await app.register((scope, _options, done) => {
    registerOAuthMetadataRoute({ app: scope, services, logger });
    done();
  });

  await app.register(async (scope) => {
    await registerInvitationRoutes({ app: scope, services, logger });
  });

  await app.register(async (scope) => {
    await registerPasswordPages({ app: scope, services, logger });
  });

  await app.register((scope, _options, done) => {
    registerSetupRoutes({ app: scope, services, logger });
    done();
  });

  // Every protected resource sits behind this one bearer check (a synchronous hook: it is on the hot path).
  await app.register((scope, _options, done) => {
    scope.addHook('onRequest', (request, _reply, next) => {
      try {
        request.caller = services.authenticator.authenticate(request.headers.authorization);
        next();
      } catch (error) {
        next(error as Error);
      }
    });
    const context = { app: scope, services, logger, callerOf };
    registerUserRoutes(context);
    registerEventRoutes(context);
    registerEKeyRoutes(context);
    registerLockRoutes(context);
    registerCommandRoutes(context);
    registerUserEKeyRoutes(context);
    registerPasswordRoutes(context);
    registerWebhookRoutes(context);
    registerGatewayRoutes(context);
    registerCalendarRoutes(context);
    done();
  });
}
