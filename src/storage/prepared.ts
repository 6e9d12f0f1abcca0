// Statements compiled once per shape, then run with new values. Kysely builds and compiles a query
// on every call, which cost more than the lookup itself on the hottest read (one account by name)
// and a third of an import's time (a thousand-row insert); this keeps the queries written with
// Kysely's builder and skips that work. One compiler serves both forms: `preparedQuery` for a
// statement of one fixed shape (also kept prepared by PostgreSQL, dialects/named-statements.ts),
// `runByShape` for statements whose shape varies a little (which columns an update sets, how many
// rows an insert holds). SQLite's connections reuse their prepared statements already.
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { keepPrepared } from './dialects/named-statements.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;
type Build<R> = (args: readonly unknown[]) => Compilable<R>;

/**
 * Runs the statement `build` makes of `args`. The first time a shape is seen (on a dialect),
 * `build` is compiled once with a stand-in for each argument, which shows where each argument goes
 * among the query's parameters (and which parameters are constants); later calls put their
 * arguments there and run the same SQL. `build` must use every argument, and only as a value bound
 * to a parameter: a shape where one is unused, went into the SQL text or was computed with cannot
 * be reused. Under test (NODE_ENV=test) that throws; otherwise the shape is compiled on every run,
 * with one warning per shape name (the part of `shape` before its first ':').
 */
export async function runByShape<R>(
  db: Db,
  shape: string | symbol,
  args: readonly unknown[],
  build: Build<R>,
  options: { keepPrepared?: boolean } = {},
): Promise<QueryResult<R>> {
  return db.executeQuery(compileByShape(db, shape, args, build, options));
}

/** The statement runByShape would run, compiled (from the learnt shape where it can be reused). */
export function compileByShape<R>(
  db: Db,
  shape: string | symbol,
  args: readonly unknown[],
  build: Build<R>,
  options: { keepPrepared?: boolean } = {},
): CompiledQuery<R> {
  const { adapter } = db.getExecutor();
  let shapes = learntShapes.get(adapter);
  if (shapes === undefined) learntShapes.set(adapter, (shapes = new Map()));
  let known = shapes.get(shape);
  if (known === undefined || known.arity !== args.length) {
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    known = learnShape(shape, build, args.length, options.keepPrepared === true);
    shapes.set(shape, known);
  }
  const { compiled } = known;
  if (compiled === null) return build(args).compile();
  const { query, slots, inOrder } = compiled;
  const parameters = inOrder ? args : slots.map((slot) => (slot.arg === undefined ? slot.constant : args[slot.arg]));
  return { ...(query as CompiledQuery<R>), parameters };
}

/**
 * A statement of one shape, compiled once per dialect and kept prepared by PostgreSQL's
 * connections: `build` gets the executor and a stand-in for each argument, under the rules of
 * runByShape.
 */
export function preparedQuery<A extends readonly unknown[], R>(
  build: (db: Db, ...args: A) => Compilable<R>,
): (db: Db, ...args: A) => Promise<R[]> {
  const shape = Symbol(`prepared query ${++preparedCount}`);
  return async (db, ...args) =>
    (await runByShape<R>(db, shape, args, (a) => build(db, ...(a as unknown as A)), { keepPrepared: true })).rows;
}

/** A statement of one shape as preparedQuery makes it, compiled for the caller to run (Store.readNow). */
export function preparedCompile<A extends readonly unknown[], R>(
  build: (db: Db, ...args: A) => Compilable<R>,
): (db: Db, ...args: A) => CompiledQuery<R> {
  const shape = Symbol(`prepared query ${++preparedCount}`);
  return (db, ...args) =>
    compileByShape<R>(db, shape, args, (a) => build(db, ...(a as unknown as A)), { keepPrepared: true });
}

/**
 * The list with its last item repeated up to the next power of two: an `in (…)` list of a varying
 * length then takes one of a few shapes. Empty stays empty.
 */
export function padded<T>(list: readonly T[]): T[] {
  const last = list.at(-1);
  if (last === undefined) return [];
  let size = 1;
  while (size < list.length) size *= 2;
  return [...list, ...Array.from({ length: size - list.length }, () => last)];
}

type Slot = { arg: number; constant?: undefined } | { arg?: undefined; constant: unknown };
interface LearntShape {
  arity: number;
  /** null when the shape cannot be reused: it is compiled on every run. */
  compiled: {
    query: CompiledQuery<unknown>;
    /** Where each parameter comes from. */
    slots: Slot[];
    /** The parameters are the arguments as they are (a multi-row insert): no copy is needed. */
    inOrder: boolean;
  } | null;
}

const STAND_IN = '\u0000shape-argument-';
/** Shapes kept per dialect; past this many (an import of every chunk size) they are learnt again. */
const MAX_SHAPES = 200;
let preparedCount = 0;

function learnShape(shape: string | symbol, build: Build<unknown>, arity: number, keep: boolean): LearntShape {
  const standIns = Array.from({ length: arity }, (_, i) => `${STAND_IN}${i}\u0000`);
  let query: CompiledQuery<unknown>;
  try {
    query = build(standIns).compile();
  } catch (error) {
    // A build that needs a real value (an array to expand, a number to compute with) cannot learn.
    return misused(
      shape,
      arity,
      `building it with stand-ins failed (${error instanceof Error ? error.message : error})`,
    );
  }
  const positions = new Map(standIns.map((standIn, i) => [standIn, i]));
  const slots = query.parameters.map((value): Slot => {
    const arg = typeof value === 'string' ? positions.get(value) : undefined;
    return arg === undefined ? { constant: value } : { arg };
  });
  if (query.sql.includes(STAND_IN)) return misused(shape, arity, 'an argument went into the SQL text');
  if (slots.some((slot) => slot.arg === undefined && JSON.stringify(slot.constant ?? null).includes('shape-argument-')))
    return misused(shape, arity, 'a parameter was computed from an argument');
  // A build that ignored an argument (it closed over a real value instead) would replay that value.
  const used = new Set(slots.map((slot) => slot.arg));
  const unused = standIns.findIndex((_, i) => !used.has(i));
  if (unused >= 0) return misused(shape, arity, `argument ${unused} is not one of its parameters`);
  if (keep) keepPrepared(query.sql);
  const inOrder = slots.length === arity && slots.every((slot, i) => slot.arg === i);
  return { arity, compiled: { query, slots, inOrder } };
}

const warned = new Set<string>();

/** A shape that cannot be reused: an error under test, else compiled on every run with a warning. */
function misused(shape: string | symbol, arity: number, reason: string): LearntShape {
  const name = typeof shape === 'symbol' ? (shape.description ?? 'a prepared query') : (shape.split(':')[0] ?? shape);
  const message = `the statement "${name}" cannot be compiled once: ${reason}`;
  if (process.env.NODE_ENV === 'test') throw new Error(message);
  if (!warned.has(name)) {
    warned.add(name);
    process.emitWarning(`${message}; it is compiled on every run instead`, { code: 'PERCH_STATEMENT_SHAPE' });
  }
  return { arity, compiled: null };
}

// Per dialect (a transaction shares its database's adapter), so one process may use both.
const learntShapes = new WeakMap<object, Map<string | symbol, LearntShape>>();

/**
 * Splits `n` rows into pieces whose sizes are powers of two of at most `max` rows (the largest
 * first), so a multi-row statement of any batch size runs as a few statements of a few learnt
 * shapes (runByShape), instead of one new shape per size.
 */
export function pieceSizes(n: number, max: number): number[] {
  let top = 1;
  while (top * 2 <= max) top *= 2;
  const sizes: number[] = [];
  let left = n;
  while (left >= top) {
    sizes.push(top);
    left -= top;
  }
  for (let size = top / 2; size >= 1; size /= 2)
    if (left >= size) {
      sizes.push(size);
      left -= size;
    }
  return sizes;
}
