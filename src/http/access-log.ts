// The access log: one line per answered request (Fastify writes two, one on arrival and one when
// answered). A request's arrival is still logged, at debug: useful to follow a request that never
// finishes, too dear at info, where it doubled the cost of logging the hottest reads.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { callerRequestId } from './errors.ts';

export class AccessLog extends LogController {
  /**
   * The answered line holds only known fields (method, URL with keys blanked by the `req`
   * serializer, address, ids, status, time), so it skips the logger's redaction, which walked every
   * member of every line for keys and cost half of writing it. Errors still go through request.log.
   */
  private readonly lines: FastifyBaseLogger;

  constructor(logger: FastifyBaseLogger) {
    super();
    this.lines = logger.child({}, { redact: { paths: [] } });
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  /** `request completed` with the method, URL (keys blanked), status and time in ms; failures as Fastify logs them. */
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      super.requestCompleted(error, request, reply);
      return;
    }
    const caller = callerRequestId(request);
    this.lines.info(
      {
        reqId: request.id,
        ...(caller === null ? {} : { callerRequestId: caller }),
        req: request,
        res: { statusCode: reply.statusCode },
        responseTime: reply.elapsedTime,
      },
      'request completed',
    );
  }
}
