// SQL texts that PostgreSQL connections keep as named prepared statements: parsed and planned once
// per connection, then only bound and run. An unnamed statement (what Kysely sends) is parsed and
// planned on every run, which cost PostgreSQL more than the lookup it plans on the hottest read.
// Only texts registered here are named, so their number stays small and fixed (storage/prepared.ts
// registers the queries it compiles once); every other query goes on unnamed.

const names = new Map<string, string>();

/** Keeps `sqlText` prepared on every connection that runs it from now on. */
export function keepPrepared(sqlText: string): void {
  if (!names.has(sqlText)) names.set(sqlText, `perch_prepared_${names.size + 1}`);
}

/** The statement name of a registered text, or undefined. */
export function preparedName(sqlText: string): string | undefined {
  return names.get(sqlText);
}
