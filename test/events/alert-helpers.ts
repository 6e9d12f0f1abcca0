// Alert rules written straight into a tracker world's store, and the alerts its checks raised: what
// the alert tests (alert-rules, alert-windows) set up and read.
import { checkAlertRule } from '../../src/domain/alert-rules.ts';
import { insertAlertRule } from '../../src/storage/alert-rules-repo.ts';
import { listEvents } from '../../src/storage/events-list.ts';
import type { TrackerWorld } from '../helpers/tracker.ts';

let ruleNumber = 0;

/** Adds a rule (named `rule N` unless `input` names it) as the API would check it; returns its id. */
export async function addRule(w: TrackerWorld, input: Record<string, unknown>): Promise<string> {
  const checked = checkAlertRule({ name: `rule ${++ruleNumber}`, ...input });
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  const id = `alr_test${ruleNumber}`;
  await insertAlertRule(w.store.db, { id, definition: checked.value, createdAt: 0, updatedAt: 0 });
  return id;
}

/** Every alert.triggered event so far, oldest first. */
export function alertEvents(w: TrackerWorld) {
  return listEvents(w.store.db, w.store.caps, { after: 0, limit: 1_000, types: ['alert.triggered'] });
}

/** [rule id, username, value] of every alert so far, in order. */
export async function alerts(w: TrackerWorld) {
  return (await alertEvents(w)).map((e) => [
    (e.data.rule as { id: string }).id,
    (e.data.account as { username: string }).username,
    e.data.value,
  ]);
}
