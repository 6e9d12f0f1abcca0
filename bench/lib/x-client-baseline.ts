// The tracker benches' baseline: the X client alone fetching users by id, nothing stored.
import { createXClient } from '../../src/platforms/x.ts';

/** Users per second when the client alone looks `ids` up, 100 per request, `inFlight` requests at a time. */
export async function clientLookupRate(
  url: string,
  bearerToken: string,
  ids: readonly string[],
  inFlight = 4,
): Promise<number> {
  const client = createXClient({ baseUrl: url, bearerToken });
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < ids.length) {
        const batch = ids.slice(next, next + 100);
        next += 100;
        await client.lookupByIds(batch);
      }
    }),
  );
  return ids.length / ((performance.now() - started) / 1000);
}

/**
 * Users per second when the client alone reads one timeline per user (the read a first check makes),
 * `inFlight` at a time, nothing parsed beyond the client's own mapping and nothing stored.
 */
export async function clientTimelineRate(
  url: string,
  bearerToken: string,
  ids: readonly string[],
  inFlight: number,
): Promise<{ rate: number; cpuMsPerUser: number }> {
  const client = createXClient({ baseUrl: url, bearerToken });
  const started = performance.now();
  const cpu = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < ids.length) {
        const id = ids[next] as string;
        next += 1;
        await client.fetchPosts(id, null, 100);
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    rate: ids.length / ((performance.now() - started) / 1000),
    cpuMsPerUser: (used.user + used.system) / 1000 / ids.length,
  };
}

/** The users' ids, as the client alone resolves the names (100 per request), in the names' order. */
export async function clientIdsOf(url: string, bearerToken: string, names: readonly string[]): Promise<string[]> {
  const client = createXClient({ baseUrl: url, bearerToken });
  const ids: string[] = [];
  for (let i = 0; i < names.length; i += 100) {
    const batch = names.slice(i, i + 100);
    const { value } = await client.lookupByUsernames(batch);
    for (const name of batch) {
      const outcome = value.get(name.toLowerCase());
      if (outcome?.kind === 'found') ids.push(outcome.user.platformUserId);
    }
  }
  return ids;
}
