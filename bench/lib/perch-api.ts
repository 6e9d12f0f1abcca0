// Talking to a running perch for the read benches: an app key, and sampled reads that must return the right record.
import { ADMIN_KEY, type Server } from './processes.ts';

export async function createAppKey(perch: Server): Promise<string> {
  const response = await fetch(`${perch.url}/api/admin/api-keys`, {
    method: 'POST',
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'app', username: 'bench', name: 'read bench' }),
  });
  if (response.status !== 201)
    throw new Error(`creating an app key answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { apiKey: string }).apiKey;
}

/**
 * Asks for `names` one by one and checks each answer is 200 with that account (with metrics, unless
 * `checked` is false: accounts just imported have none yet); returns the first body.
 */
export async function checkSample(
  perch: Server,
  apiKey: string,
  names: readonly string[],
  { checked = true }: { checked?: boolean } = {},
): Promise<string> {
  let first = '';
  for (const name of names) {
    const response = await fetch(`${perch.url}/api/?username=${name}`, { headers: { 'x-api-key': apiKey } });
    const body = await response.text();
    if (response.status !== 200)
      throw new Error(`GET /api/?username=${name} answered ${response.status}: ${body.slice(0, 300)}`);
    const account = JSON.parse(body) as { username?: string; metrics?: unknown };
    if (account.username !== name || (checked && account.metrics == null))
      throw new Error(`GET /api/?username=${name} returned another record: ${body.slice(0, 300)}`);
    first ||= body;
  }
  return first;
}
