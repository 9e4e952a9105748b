import { createServer } from 'node:http';

/**
 * The yardstick: a raw `node:http` server that answers every request with a fixed JSON body.
 * Run as a child process by the benchmark (`node baseline-server.js '<body>'`); prints
 * `{"base_url": …}` on its first stdout line, stops on SIGTERM.
 */
const body = Buffer.from(process.argv[2] ?? '{"hello":"world"}');

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    response.end(body);
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ base_url: `http://127.0.0.1:${port}` })}\n`);
});

process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
