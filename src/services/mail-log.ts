// The mail delivery log (every attempt, newest first), for the API and the dashboard.
import { listMailAttempts, type MailAttemptView } from '../storage/mail-repo.ts';
import type { Store } from '../storage/store.ts';

export type { MailAttemptView } from '../storage/mail-repo.ts';

export async function readMailLog(
  deps: { store: Store },
  page: { before?: number | undefined; limit?: number | undefined },
): Promise<MailAttemptView[]> {
  return listMailAttempts(deps.store.reader, { before: page.before, limit: Math.min(200, page.limit ?? 50) });
}
