// Errors met before any route runs: Fastify's routing errors and Node's HTTP parser errors,
// answered as problem documents like every other error.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { PerchError, type ErrorCode } from '../domain/errors.ts';
import { problemOf, sendProblem, statusOf } from './errors.ts';

// Errors Fastify meets before a route runs (its `frameworkErrors`); anything else there is ours.
const FRAMEWORK_ERRORS: Record<string, [ErrorCode, string]> = {
  FST_ERR_BAD_URL: ['bad_request', 'The URL is not valid.'],
  FST_ERR_MAX_PARAM_LENGTH: ['bad_request', 'A path segment is too long.'],
};

/** Fastify's routing errors (a URL that does not decode), as problem documents instead of its own JSON. */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const [code, detail]: [ErrorCode, string] = FRAMEWORK_ERRORS[error.code] ?? [
    'internal',
    'Something went wrong on our side. Quote the requestId if you report it.',
  ];
  if (statusOf(code) >= 500) request.log.error({ err: error }, 'request failed');
  else request.log.info({ code }, 'request refused');
  void sendProblem(reply, new PerchError(code, detail));
}

/** Node's HTTP parser errors, raised before there is a request: which problem each one is. */
function clientProblem(code: string): PerchError {
  if (code === 'HPE_HEADER_OVERFLOW')
    return new PerchError(
      'request_header_too_large',
      'The request line and headers are larger than the server accepts; send a shorter URL or fewer headers.',
    );
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new PerchError('request_timeout', 'The request took too long to arrive.');
  return new PerchError('bad_request', 'The request is not valid HTTP/1.1.');
}

/**
 * Answers what Node's parser refuses (oversized headers, malformed HTTP, a request that never
 * finishes) with a problem document written straight to the socket, then closes it: there is no
 * Fastify request, so there is no request id either.
 */
export function buildClientErrorHandler(log: FastifyBaseLogger) {
  return function handleClientError(error: Error & { code?: string }, socket: Socket): void {
    // A reset connection is gone already; nothing to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const problem = problemOf(clientProblem(error.code ?? ''), 'none');
    log.info({ code: error.code, answer: problem.code }, 'client error');
    // Writing mid-response (a pipelined request after a started answer) would corrupt that answer.
    const busy = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (socket.writable && !busy) {
      const body = JSON.stringify(problem);
      socket.write(
        `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? problem.title}\r\n` +
          'content-type: application/problem+json; charset=utf-8\r\n' +
          `content-length: ${Buffer.byteLength(body)}\r\n` +
          'connection: close\r\n\r\n' +
          body,
      );
    }
    // destroySoon flushes what was written, then closes; destroy() could drop the answer.
    socket.destroySoon();
  };
}
