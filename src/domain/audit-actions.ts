// The admin actions the audit log records: a union, so a misspelled action does not compile.
export const AUDIT_ACTIONS = [
  'accounts.import',
  'account.update',
  'account.untrack',
  'account.purge',
  'account.refresh',
  'api_key.create',
  'api_key.revoke',
  'webhook.create',
  'webhook.update',
  'webhook.delete',
  'webhook.rotate_secret',
  'alert.create',
  'alert.update',
  'alert.delete',
  'digest.create',
  'digest.update',
  'digest.delete',
  'digest.send',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
