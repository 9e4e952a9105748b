import { createServer } from 'node:http';

/**
 * The yardstick: a raw `node:http` server that answers every request with a fixed JSON body.
 * Run as a child process by the benchmark (`node baseline-server.js '<body>' [<path> '<body>']…`):
 * the first body answers every path not named; each further pair answers its exact path (so a
 * baseline can serve a mix of body sizes, as the service does). Prints `{"base_url": …}` on its
 * first stdout line, stops on SIGTERM.
 */
const [first, ...rest] = process.argv.slice(2);
const fallback = Buffer.from(first ?? '{"hello":"world"}');
const byPath = new Map<string, Buffer>();
for (let index = 0; index + 1 < rest.length; index += 2) byPath.set(rest[index] ?? '', Buffer.from(rest[index + 1] ?? ''));

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const body = byPath.get(request.url ?? '/') ?? fallback;
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
