// Each request's logger (`request.log`, bound to its id), made only when the request logs something.
// Fastify makes a child logger per request; making a pino child costs its bindings' serialization
// and redaction on every request, while most requests log only their access line, which the
// access log writes itself (access-log.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyChildLoggerFactory } from 'fastify/types/logger.js';
import type { Logger } from 'pino';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type Options = Parameters<FastifyBaseLogger['child']>[1];
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** A child of `parent` that exists once a line at an enabled level, or a child of its own, asks for it. */
class LazyChildLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: Options,
  ) {}

  private real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options) as unknown as FastifyBaseLogger);
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  private line(level: Level, args: unknown[]): void {
    if (this.made === null && !this.parent.isLevelEnabled(level)) return;
    (this.real()[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.line('fatal', args);
  }
  error(...args: unknown[]): void {
    this.line('error', args);
  }
  warn(...args: unknown[]): void {
    this.line('warn', args);
  }
  info(...args: unknown[]): void {
    this.line('info', args);
  }
  debug(...args: unknown[]): void {
    this.line('debug', args);
  }
  trace(...args: unknown[]): void {
    this.line('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: Options): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }
}

/** Fastify's childLoggerFactory: lazy children, except for a route with a log level of its own. */
export const lazyRequestLogger: FastifyChildLoggerFactory = (logger, bindings, options) => {
  if (options.level !== undefined) return logger.child(bindings, options);
  return new LazyChildLogger(logger as unknown as Logger, bindings, options) as unknown as FastifyBaseLogger;
};
