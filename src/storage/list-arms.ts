// A filtered page as a union of index ranges ("arms"), each read in the index's own order, so the
// filters never make the store walk rows that do not match. A filter on a column with a few
// known values (platform, status, event type) becomes one arm per value; a position in the
// order becomes at most three ranges of (value, id), each an index range on both dialects.
import { sql, type RawBuilder } from 'kysely';
import type { DialectCapabilities } from './dialects/capabilities.ts';

export type Direction = 'asc' | 'desc';

/** A position in a listing's order: [sort value, row id]. */
export type Position = readonly [string | number, number];

/** One index range: the source (a table, with the index named where the dialect takes a name) and its conditions. */
export interface Arm {
  from: RawBuilder<unknown>;
  where: readonly RawBuilder<unknown>[];
}

/** How arms of one listing read their rows: the sort value and row id expressions, and the direction. */
export interface ArmOrder {
  value: RawBuilder<unknown>;
  /** Settles ties of the value; absent where the value is unique (an event's seq). */
  id?: RawBuilder<unknown>;
  direction: Direction;
  /** No two rows of one arm share a value (a username within a platform): no tie to read apart. */
  distinct?: boolean;
}

const OPS = {
  asc: { from: sql`>=`, after: sql`>`, before: sql`<`, upTo: sql`<=` },
  desc: { from: sql`<=`, after: sql`<`, before: sql`>`, upTo: sql`>=` },
} as const;

/** A stretch of the order: conditions on (value, id); `tie` when all its rows share one value. */
export interface Segment {
  where: readonly RawBuilder<unknown>[];
  tie: boolean;
}

/**
 * The keys strictly after `from` and up to `to` (inclusive), as at most three stretches in order,
 * each an index range: the rest of `from`'s value by id, the values between, and `to`'s value up
 * to its id. A row-value comparison `(value, id) > (v, i)` would say it in one, but SQLite bounds
 * an index range by its first column only, and then walks every row that ties on the value (a
 * million unchecked accounts tie on their followers). A tie is read in id order alone: SQLite does
 * not see that an expression held equal orders nothing, and would sort the whole tie again.
 */
export function keySegments(order: ArmOrder, from?: Position, to?: Position): Segment[] {
  const { value } = order;
  const id = order.id ?? value;
  const op = OPS[order.direction];
  if (order.distinct) {
    // One stretch: a range on the value, and the one row holding `from`'s or `to`'s value settled by id.
    const where: RawBuilder<unknown>[] = [];
    if (from)
      where.push(sql`${value} ${op.from} ${from[0]}`, sql`(${value} <> ${from[0]} or ${id} ${op.after} ${from[1]})`);
    if (to) where.push(sql`${value} ${op.upTo} ${to[0]}`, sql`(${value} <> ${to[0]} or ${id} ${op.upTo} ${to[1]})`);
    return [{ where, tie: false }];
  }
  if (from && to && from[0] === to[0])
    return [
      {
        where: [sql`${value} = ${from[0]}`, sql`${id} ${op.after} ${from[1]}`, sql`${id} ${op.upTo} ${to[1]}`],
        tie: true,
      },
    ];
  const segments: Segment[] = [];
  const between: RawBuilder<unknown>[] = [];
  if (from) {
    segments.push({ where: [sql`${value} = ${from[0]}`, sql`${id} ${op.after} ${from[1]}`], tie: true });
    between.push(sql`${value} ${op.after} ${from[0]}`);
  }
  if (to) between.push(sql`${value} ${op.before} ${to[0]}`);
  segments.push({ where: between, tie: false });
  if (to) segments.push({ where: [sql`${value} = ${to[0]}`, sql`${id} ${op.upTo} ${to[1]}`], tie: true });
  return segments;
}

/** Every arm with `conditions` added. */
export function withConditions(arms: readonly Arm[], conditions: readonly RawBuilder<unknown>[]): Arm[] {
  return arms.map((arm) => ({ from: arm.from, where: [...arm.where, ...conditions] }));
}

const where = (arm: Arm) => (arm.where.length === 0 ? sql`` : sql`where ${sql.join([...arm.where], sql` and `)}`);
const orderBy = (order: ArmOrder, tie: boolean) => {
  const d = sql.raw(order.direction);
  if (order.id === undefined) return sql`order by sort_value ${d}`;
  return tie ? sql`order by id ${d}` : sql`order by sort_value ${d}, id ${d}`;
};
const select = (order: ArmOrder, arm: Arm) =>
  sql`select ${order.value} as sort_value, ${order.id ?? order.value} as id from ${arm.from} ${where(arm)}`;

type Keys = RawBuilder<{ sort_value: string | number; id: number }>;

/**
 * The first `limit` rows of the arms together, in order, merged as each arm's index delivers
 * them; where the dialect needs it (capabilities.ts, limitEachArm), each arm is limited too.
 */
export function firstOfArms(
  caps: DialectCapabilities,
  order: ArmOrder,
  arms: readonly Arm[],
  limit: number,
  tie = false,
): Keys {
  const parts = caps.limitEachArm
    ? arms.map(
        (arm, i) =>
          sql`select * from (${select(order, arm)} ${orderBy(order, tie)} limit ${limit}) as ${sql.raw(`arm${i}`)}`,
      )
    : arms.map((arm) => select(order, arm));
  return sql`${sql.join(parts, sql` union all `)} ${orderBy(order, tie)} limit ${limit}`;
}

/** The arms' rows without an order: to be counted, or sorted whole where no index gives the order. */
export function allOfArms(order: ArmOrder, arms: readonly Arm[]): Keys {
  return sql.join(
    arms.map((arm) => select(order, arm)),
    sql` union all `,
  );
}

/** Each arm's row `n` places on (those with fewer rows give none): how far `n` rows of each reach. */
export function reachOfArms(order: ArmOrder, arms: readonly { arm: Arm; tie: boolean }[], n: number): Keys {
  return sql.join(
    arms.map(
      ({ arm, tie }, i) =>
        sql`select * from (${select(order, arm)} ${orderBy(order, tie)} limit 1 offset ${n - 1}) as ${sql.raw(`reach${i}`)}`,
    ),
    sql` union all `,
  );
}

/** Compares two positions in `direction`'s order (text as the stores order it: by bytes): negative when `a` comes first. */
export function comparePositions(direction: Direction, a: Position, b: Position): number {
  const sign = direction === 'asc' ? 1 : -1;
  if (a[0] !== b[0]) {
    const less =
      typeof a[0] === 'string' && typeof b[0] === 'string'
        ? Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])) < 0
        : a[0] < b[0];
    return (less ? -1 : 1) * sign;
  }
  return (a[1] - b[1]) * sign;
}
