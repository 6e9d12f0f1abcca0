// The access log: one line per answered request (Fastify writes two, one on arrival and one when
// answered). A request's arrival is still logged, at debug: useful to follow a request that never
// finishes, too dear at info, where it doubled the cost of logging the hottest reads.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  /** `request completed` with the method, URL (keys blanked), status and time in ms; failures as Fastify logs them. */
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      super.requestCompleted(error, request, reply);
      return;
    }
    request.log.info(
      { req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime },
      'request completed',
    );
  }
}
