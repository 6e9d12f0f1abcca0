// Queries built and compiled once per connection pool, then run with new values. Kysely builds and
// compiles a query on every call, which costs more than the lookup itself on the hottest read (one
// account by name); this keeps the query written with Kysely's builder and skips that work. On
// PostgreSQL the server keeps them prepared too (dialects/named-statements.ts); SQLite's
// connections reuse their prepared statements already (dialects/sqlite.ts).
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { keepPrepared } from './dialects/named-statements.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

interface Prepared<R> {
  query: CompiledQuery<R>;
  /** Where each argument goes in the compiled query's parameters. */
  slots: number[];
}

/**
 * `build` is called once per executor with a stand-in for each argument; every argument must end
 * up as exactly one parameter of the query (a value Kysely inlines or copies would be caught here).
 * Later calls put their arguments in those places and run the compiled SQL.
 */
export function preparedQuery<A extends readonly string[], R>(
  build: (db: Db, ...args: A) => Compilable<R>,
): (db: Db, ...args: A) => Promise<R[]> {
  const compiled = new WeakMap<Db, Prepared<R>>();
  const compile = (db: Db, arity: number): Prepared<R> => {
    const standIns = Array.from({ length: arity }, (_, i) => `\u0000prepared-argument-${i}\u0000`);
    const query = build(db, ...(standIns as unknown as A)).compile();
    const slots = standIns.map((standIn) => {
      const slot = query.parameters.indexOf(standIn);
      if (slot < 0 || query.parameters.lastIndexOf(standIn) !== slot)
        throw new Error('a prepared query must use each argument as exactly one parameter');
      return slot;
    });
    keepPrepared(query.sql);
    return { query, slots };
  };
  return async (db, ...args) => {
    let prepared = compiled.get(db);
    if (prepared === undefined) {
      prepared = compile(db, args.length);
      compiled.set(db, prepared);
    }
    const parameters = [...prepared.query.parameters];
    prepared.slots.forEach((slot, i) => (parameters[slot] = args[i]));
    const result = await db.executeQuery<R>({ ...prepared.query, parameters });
    return result.rows;
  };
}

/**
 * For queries whose shape varies a little (which columns an update sets, how many rows an insert
 * holds): `build` is compiled the first time a shape is seen, and when its parameters are exactly
 * `parameters`, in order, its SQL is kept for that shape and later calls run it with theirs,
 * skipping Kysely's building and compiling. A shape whose parameters differ is compiled every time.
 */
export async function runByShape<R>(
  db: Db,
  shape: string,
  parameters: readonly unknown[],
  build: () => Compilable<R>,
): Promise<QueryResult<R>> {
  const { adapter } = db.getExecutor();
  let shapes = compiledShapes.get(adapter);
  if (shapes === undefined) compiledShapes.set(adapter, (shapes = new Map()));
  const known = shapes.get(shape) as CompiledQuery<R> | undefined;
  if (known !== undefined && known.parameters.length === parameters.length)
    return db.executeQuery<R>({ ...known, parameters });
  const compiled = build().compile();
  if (
    compiled.parameters.length === parameters.length &&
    compiled.parameters.every((value, i) => value === parameters[i])
  ) {
    if (shapes.size >= 200) shapes.clear();
    shapes.set(shape, compiled);
  }
  return db.executeQuery(compiled);
}

// Per dialect (a transaction shares its database's adapter), so one process may use both.
const compiledShapes = new WeakMap<object, Map<string, CompiledQuery<unknown>>>();
