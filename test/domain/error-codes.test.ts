// Error codes and audit actions are unions: every code maps to an HTTP status, and a misspelled
// code or action is a type error (checked by `npm run typecheck`, which covers the tests).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIT_ACTIONS, type AuditAction } from '../../src/domain/audit-actions.ts';
import { ERROR_CODES, PerchError } from '../../src/domain/errors.ts';
import { problemOf, statusOf } from '../../src/http/errors.ts';

describe('error codes and audit actions', () => {
  it('gives every code a 4xx or 5xx status and a problem type of its own', () => {
    const types = new Set<string>();
    for (const code of ERROR_CODES) {
      const status = statusOf(code);
      assert.ok(status >= 400 && status < 600, `${code} → ${status}`);
      types.add(problemOf(new PerchError(code, 'detail'), 'req-1').type);
    }
    assert.equal(types.size, ERROR_CODES.length);
  });

  it('refuses a misspelled code or action at compile time', () => {
    // @ts-expect-error 'acount_not_found' is not an error code
    const misspelled = new PerchError('acount_not_found', 'x');
    // @ts-expect-error 'account.delete' is not an audit action
    const action: AuditAction = 'account.delete';
    assert.equal(misspelled.code, 'acount_not_found');
    assert.equal(AUDIT_ACTIONS.includes(action), false);
  });
});
