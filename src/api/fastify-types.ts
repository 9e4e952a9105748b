import type { Caller } from '../auth/caller.js';

/** What a route produces when it is not JSON: exempts it from the JSON-only Accept rule. */
export type RouteProduces = 'json' | 'html' | 'event-stream' | 'asset';

declare module 'fastify' {
  interface FastifyContextConfig {
    produces?: RouteProduces;
  }
  interface FastifyRequest {
    /** Set by the bearer authentication hook on protected routes. */
    caller: Caller | null;
  }
}

export {};
