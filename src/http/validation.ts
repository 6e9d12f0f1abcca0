// Request validation: query strings and params are coerced from text (`limit=10` → 10), bodies
// are not (`{"file": 42}` must be refused, not read as "42"). Unknown fields are errors, not dropped.
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({ removeAdditional: false, useDefaults: true, allErrors: true, strict: false, ...options });
  addFormats.default(ajv);
  return ajv;
}

export function registerValidation(app: FastifyInstance): void {
  const bodyAjv = createAjv({ coerceTypes: false });
  const textAjv = createAjv({ coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));
}
