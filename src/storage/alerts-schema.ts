// The alert rules' tables (migrations 016, 018) as Kysely sees them; part of `Database`.

export interface AlertRulesTable {
  id: string;
  name: string;
  /** JSON: the scope with account row ids. */
  scope: string;
  metric: string;
  /** JSON: the condition as the API takes it. */
  condition: string;
  cooldown_ms: number;
  /** JSON array of e-mail addresses. */
  recipients: string;
  enabled: number;
  created_at: number;
  updated_at: number;
}

/** Counters the store bumps on every change to a table (migration 018): `alert_rules`. */
export interface ChangeCountersTable {
  name: string;
  n: number;
}

/** The last firing of a rule for an account. */
export interface AlertFiringsTable {
  rule_id: string;
  account_id: number;
  last_fired_at: number;
  fired_count: number;
  /** JSON: the finding of the last firing (metric, value, threshold or baseline…). */
  last_data: string;
}

export interface AlertTables {
  alert_rules: AlertRulesTable;
  change_counters: ChangeCountersTable;
  alert_firings: AlertFiringsTable;
}
