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

/** Keeps the gateway's info, warn and error lines (`level message`) and counts its debug lines (retries), for assertions. */
export class GatewayLineLogger implements GatewayLogger {
  readonly lines: string[] = [];
  debugLines = 0;
  debug(): void {
    this.debugLines += 1;
  }
  info(message: string): void {
    this.lines.push(`info ${message}`);
  }
  warn(message: string): void {
    this.lines.push(`warn ${message}`);
  }
  error(message: string): void {
    this.lines.push(`error ${message}`);
  }
}
