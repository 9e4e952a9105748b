import { Type } from 'typebox';
import type { RouteContext } from './route-context.js';

const LockFields = Type.Object({
  id: Type.String(),
  name: Type.String(),
  family: Type.String(),
  family_name: Type.String(),
  features: Type.Array(Type.String()),
  modes: Type.Union([Type.Object({ ring_to_open: Type.Boolean(), continuous_mode: Type.Boolean() }), Type.Null()]),
  bolt_state: Type.String(),
  online_status: Type.String(),
  battery_level: Type.Union([Type.Number(), Type.Null()]),
  last_seen_at: Type.Union([Type.String(), Type.Null()]),
  gateway: Type.Boolean(),
  owner_email: Type.String(),
});

const GatewayFields = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.String(),
  state: Type.String(),
  address: Type.Union([Type.String(), Type.Null()]),
  connections_free: Type.Union([Type.Integer(), Type.Null()]),
  connections_limit: Type.Union([Type.Integer(), Type.Null()]),
});

const CalendarFields = Type.Object({
  id: Type.String(),
  locks: Type.Array(Type.String()),
  state: Type.String(),
  last_refresh_at: Type.Union([Type.String(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  bookings: Type.Integer(),
});

const OwnerBody = Type.Object(
  {
    email: Type.String({ maxLength: 320 }),
    name: Type.String({ maxLength: 200 }),
    password: Type.String({ maxLength: 1024 }),
  },
  { additionalProperties: false },
);

/**
 * The Homebridge UI settings page's routes (homebridge-ui/server.js; docs/architecture.md "The
 * settings page"): behind the setup token of the status file, not an OAuth token. Hidden from the
 * OpenAPI document: no client of the public API uses them.
 */
export function registerSetupRoutes({ app, services }: RouteContext): void {
  app.addHook('onRequest', (request, _reply, next) => {
    try {
      services.setup.authenticate(request.headers.authorization);
      next();
    } catch (error) {
      next(error as Error);
    }
  });

  app.get(
    '/setup/status',
    { schema: { hide: true, response: { 200: Type.Object({ locks: Type.Array(LockFields), owners: Type.Array(Type.Object({ email: Type.String(), active: Type.Boolean() })), gateways: Type.Array(GatewayFields), calendars: Type.Array(CalendarFields) }) } } },
    () => services.setup.status(),
  );

  app.post('/setup/owner', { schema: { hide: true, body: OwnerBody } }, async (request, reply) => {
    const created = await services.setup.createOwner(request.body);
    return reply.code(201).send(created);
  });
}
