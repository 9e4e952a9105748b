/**
 * rate-limiter-flexible publishes types only for its entry point, whose module loads every store
 * backend (Redis, Mongo, MySQL, Postgres, …: ~100 KB of code the service thread would compile at
 * every start). The password-attempt throttle uses the in-memory limiter alone, so it imports that class's
 * own module; the types are the entry point's.
 */
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  import type { RateLimiterMemory } from 'rate-limiter-flexible';

  const RateLimiterMemoryClass: typeof RateLimiterMemory;
  export default RateLimiterMemoryClass;
}
