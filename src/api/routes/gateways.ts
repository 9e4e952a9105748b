import type { ProtectedRouteContext } from './route-context.js';
import { protectedErrors } from '../schemas/common.js';
import { GatewayListSchema } from '../schemas/gateway.js';

/** GET /gateways (docs/design.md §4e): the gateway devices, for owners and admins of a lock. */
export function registerGatewayRoutes(context: ProtectedRouteContext): void {
  const { app, services } = context;
  app.get(
    '/gateways',
    {
      schema: {
        tags: ['gateways'],
        summary: 'The gateway devices that reach the locks: the host\'s Bluetooth adapter and each ESPHome Bluetooth proxy (owners and admins)',
        description:
          'Every gateway with its state and free connection slots, each listing the locks the caller owns or administers that it hears (signal, when) ' +
          'or holds a link to. 404 for a caller who owns or administers no lock.',
        response: { 200: GatewayListSchema, ...protectedErrors },
      },
    },
    (request) => services.gateways.list(context.callerOf(request).userId),
  );
}
