// The memory bench's baseline: a bare node:http server, plain JavaScript so that node runs it with no
// loader (as perch's production command runs), answering a small JSON body to every URL.
// Run as a child process: PORT=… node bench/lib/bare-http-server.mjs
import { createServer } from 'node:http';

const body = Buffer.from('{"status":"pass"}');
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
  response.end(body);
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
