// Baseline for the read bench: a bare node:http server answering every URL with one precomputed JSON body.
// Run as a child process: PORT=… BASELINE_BODY_FILE=… node --import tsx bench/lib/baseline-server.ts
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.env.BASELINE_BODY_FILE ?? '');
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };

const server = createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
});
server.keepAliveTimeout = 72_000; // Fastify's default, so both servers treat idle connections alike
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
