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
export function preparedQuery<A extends readonly unknown[], R>(
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
 * holds). The first time a shape is seen, `build` is compiled once with a stand-in for each
 * argument, which shows where each argument goes among the query's parameters (and which
 * parameters are constants); later calls put their arguments there and run the same SQL, skipping
 * Kysely's building and compiling. `build` must use every argument, and only as a value: a shape
 * where one is unused, went into the SQL text or was computed with is compiled every time.
 */
export async function runByShape<R>(
  db: Db,
  shape: string,
  args: readonly unknown[],
  build: (args: readonly unknown[]) => Compilable<R>,
): Promise<QueryResult<R>> {
  const { adapter } = db.getExecutor();
  let shapes = learntShapes.get(adapter);
  if (shapes === undefined) learntShapes.set(adapter, (shapes = new Map()));
  let known = shapes.get(shape);
  if (known === undefined || known.arity !== args.length) {
    if (shapes.size >= 200) shapes.clear();
    known = learnShape(build, args.length);
    shapes.set(shape, known);
  }
  const { slots } = known;
  if (slots === null) return db.executeQuery(build(args).compile());
  const parameters = known.inOrder
    ? args
    : slots.map((slot) => (slot.arg === undefined ? slot.constant : args[slot.arg]));
  return db.executeQuery<R>({ ...(known.query as CompiledQuery<R>), parameters });
}

type Slot = { arg: number; constant?: undefined } | { arg?: undefined; constant: unknown };
interface LearntShape {
  arity: number;
  query: CompiledQuery<unknown>;
  /** Where each parameter comes from; null when the shape cannot be reused. */
  slots: Slot[] | null;
  /** The parameters are the arguments as they are (a multi-row insert): no copy is needed. */
  inOrder: boolean;
}

const STAND_IN = '\u0000shape-argument-';

function learnShape(build: (args: readonly unknown[]) => Compilable<unknown>, arity: number): LearntShape {
  const standIns = Array.from({ length: arity }, (_, i) => `${STAND_IN}${i}\u0000`);
  const query = build(standIns).compile();
  const positions = new Map(standIns.map((standIn, i) => [standIn, i]));
  const slots = query.parameters.map((value): Slot => {
    const arg = typeof value === 'string' ? positions.get(value) : undefined;
    return arg === undefined ? { constant: value } : { arg };
  });
  // A build that ignored an argument (it closed over a real value instead) would replay that value.
  const used = new Set(slots.map((slot) => slot.arg));
  const misused =
    standIns.some((_, i) => !used.has(i)) ||
    query.sql.includes(STAND_IN) ||
    slots.some((slot) => slot.arg === undefined && JSON.stringify(slot.constant ?? null).includes('shape-argument-'));
  const inOrder = slots.length === arity && slots.every((slot, i) => slot.arg === i);
  return { arity, query, slots: misused ? null : slots, inOrder };
}

// Per dialect (a transaction shares its database's adapter), so one process may use both.
const learntShapes = new WeakMap<object, Map<string, LearntShape>>();
