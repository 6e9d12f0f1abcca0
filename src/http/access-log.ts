// The access log: one line per answered request (Fastify writes two, one on arrival and one when
// answered). A request's arrival is still logged, at debug: useful to follow a request that never
// finishes, too dear at info, where it doubled the cost of logging the hottest reads.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';
import { redactKeys } from '../logger.ts';
import { callerRequestId } from './errors.ts';

const { streamSym, chindingsSym, timeSym } = pino.symbols;
const INFO = 30;

/** What the line is written with: pino's own parts of a line (its time, its bindings) and its destination. */
interface LineParts {
  time: () => string;
  bindings: string;
  stream: { write(line: string): unknown };
}

function linePartsOf(logger: FastifyBaseLogger): LineParts | null {
  const parts = logger as unknown as Record<symbol, unknown>;
  const time = parts[timeSym];
  const bindings = parts[chindingsSym];
  const stream = parts[streamSym] as { write?: unknown } | undefined;
  if (typeof time !== 'function' || typeof bindings !== 'string' || typeof stream?.write !== 'function') return null;
  return { time: time as () => string, bindings, stream: stream as LineParts['stream'] };
}

export class AccessLog extends LogController {
  /**
   * The answered line holds only known fields (method, URL with keys blanked, address, ids, status,
   * time), so it is written as text here, in the order and form pino writes it (level, time, the
   * logger's bindings, the fields, msg), straight to the logger's destination: pino's serializers
   * and its redaction, which walked every member of every line for keys, cost more than the line's
   * own content. Errors still go through request.log.
   */
  private readonly lines: FastifyBaseLogger;
  private readonly parts: LineParts | null;

  constructor(logger: FastifyBaseLogger) {
    super();
    this.lines = logger.child({}, { redact: { paths: [] } });
    this.parts = linePartsOf(this.lines);
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
    const { parts } = this;
    if (parts === null) {
      this.lines.info(
        {
          reqId: request.id,
          ...(caller === null ? {} : { callerRequestId: caller }),
          req: { method: request.method, url: redactKeys(request.url), ip: request.ip, id: request.id },
          res: { statusCode: reply.statusCode },
          responseTime: reply.elapsedTime,
        },
        'request completed',
      );
      return;
    }
    if ((this.lines as unknown as { levelVal: number }).levelVal > INFO) return;
    const id = JSON.stringify(String(request.id));
    parts.stream.write(
      `{"level":30${parts.time()}${parts.bindings},"reqId":${id}` +
        (caller === null ? '' : `,"callerRequestId":${JSON.stringify(caller)}`) +
        `,"req":{"method":${JSON.stringify(request.method)},"url":${JSON.stringify(redactKeys(request.url))}` +
        `${request.ip === undefined ? '' : `,"ip":${JSON.stringify(request.ip)}`},"id":${id}}` +
        `,"res":{"statusCode":${reply.statusCode}},"responseTime":${reply.elapsedTime},"msg":"request completed"}\n`,
    );
  }
}
