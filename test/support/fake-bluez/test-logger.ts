import { silentLogger, type GatewayLogger } from '../../../src/gateway/gateway-logger.js';

/** Silent, unless GATEWAY_DEBUG is set: then every gateway log line goes to the console. */
export function testLogger(): GatewayLogger {
  if (process.env.GATEWAY_DEBUG === undefined) return silentLogger;
  return {
    debug: (message) => {
      console.log(`debug ${message}`);
    },
    info: (message) => {
      console.log(`info  ${message}`);
    },
    warn: (message) => {
      console.log(`warn  ${message}`);
    },
    error: (message) => {
      console.log(`error ${message}`);
    },
  };
}
