// The demo's simulated platforms: the local X and Bluesky servers seeded with a few hundred
// accounts whose followers, posts and names change while the demo runs. No network, no keys.
import { startFakeBluesky, type FakeBluesky } from '../src/simulators/bluesky-server.ts';
import type { NewPost } from '../src/simulators/bluesky-types.ts';
import { startFakeJetstream, type FakeJetstream } from '../src/simulators/jetstream-server.ts';
import { streamWorld } from '../src/simulators/jetstream-world.ts';
import { startFakeX, type FakeX, type NewXPost } from '../src/simulators/x-server.ts';

export const DEMO_X_TOKEN = 'demo-x-token';

const WORDS = [
  'river',
  'maple',
  'orbit',
  'pixel',
  'harbor',
  'lumen',
  'cedar',
  'quartz',
  'ember',
  'tundra',
  'nova',
  'sable',
  'willow',
  'atlas',
  'comet',
  'fjord',
];
const TAGS = [
  'opensource',
  'typescript',
  'climate',
  'design',
  'running',
  'coffee',
  'music',
  'space',
  'privacy',
  'books',
];
const DOMAINS = [
  'https://example.com/notes',
  'https://www.example.org/post',
  'https://news.example.net/story',
  'https://blog.example.dev/entry',
];
// Short posts in a few languages and moods, so the analysis has something to tell apart.
const TEXTS: { text: string; lang: string }[] = [
  { text: 'What a wonderful morning, the new release works beautifully and the team is thrilled', lang: 'en' },
  { text: 'Really disappointed by the outage today, everything was slow and broken for hours', lang: 'en' },
  { text: 'Shipping a small fix for the search page this afternoon, details in the changelog', lang: 'en' },
  { text: 'Grateful for everyone who came to the meetup last night, it was a great evening', lang: 'en' },
  { text: 'This rainy week is awful and my train was cancelled again, terrible commute', lang: 'en' },
  { text: 'Nous avons publié une nouvelle version de la bibliothèque avec de belles améliorations', lang: 'fr' },
  { text: 'Heute haben wir die neue Version veröffentlicht und die Rückmeldungen sind sehr gut', lang: 'de' },
  { text: 'Hoy publicamos la nueva versión y estamos muy contentos con el resultado final', lang: 'es' },
];

export interface Simulation {
  x: FakeX;
  bsky: FakeBluesky;
  /** The local Jetstream the Bluesky world publishes its posts, renames and takedowns through. */
  jetstream: FakeJetstream;
  /** The names to import, as CSV text (with platform and tags columns). */
  csv: string;
  /** Followers who came while the demo runs, per followed Bluesky DID (some leave again). */
  fans: Map<string, string[]>;
  close(): Promise<void>;
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)] as T;
}

function postInput(random: () => number) {
  const sample = pick(TEXTS, random);
  return {
    text: sample.text,
    lang: sample.lang,
    likes: Math.floor(random() * 200),
    reposts: Math.floor(random() * 40),
    replies: Math.floor(random() * 25),
    quotes: Math.floor(random() * 5),
    tags: random() < 0.6 ? [pick(TAGS, random)] : [],
    links: random() < 0.4 ? [pick(DOMAINS, random)] : [],
  };
}

/** A random post in the local X server's terms; `createdAt` backdates it (published now if absent). */
function xPost(random: () => number, createdAt?: string): NewXPost {
  const { lang, tags, links, ...rest } = postInput(random);
  return { ...rest, lang, hashtags: tags, urls: links, ...(createdAt === undefined ? {} : { createdAt }) };
}

/** A random post in the local Bluesky server's terms; `createdAt` as for xPost. */
function blueskyPost(random: () => number, createdAt?: string): NewPost {
  const { lang, ...rest } = postInput(random);
  return { ...rest, langs: [lang], ...(createdAt === undefined ? {} : { createdAt }) };
}

/** Some time in the last 20 days, for the posts a simulated account already has. */
const pastDate = (random: () => number): string => new Date(Date.now() - random() * 20 * 86_400_000).toISOString();

/** Starts both servers with `xCount` X and `blueskyCount` Bluesky accounts (a few of them gone). */
export async function startSimulation(
  xCount = 200,
  blueskyCount = 100,
  random: () => number = Math.random,
): Promise<Simulation> {
  const x = await startFakeX({ bearerToken: DEMO_X_TOKEN });
  const bsky = await startFakeBluesky();
  // Limits of the same order as the real platforms', so health shows live rate-limit state.
  x.setRateLimit('users_by', 300, 15 * 60_000);
  x.setRateLimit('users', 300, 15 * 60_000);
  x.setRateLimit('tweets', 1_500, 15 * 60_000);
  x.setRateLimit('tweets_by_ids', 450, 15 * 60_000);
  bsky.setRateLimit('getProfiles', 3_000, 5 * 60_000);
  bsky.setRateLimit('getProfile', 3_000, 5 * 60_000);
  bsky.setRateLimit('getAuthorFeed', 3_000, 5 * 60_000);
  bsky.setRateLimit('getPosts', 3_000, 5 * 60_000);
  const rows: string[] = ['username,platform,tags'];
  for (let i = 0; i < xCount; i++) {
    const username = `${pick(WORDS, random)}_${i}`;
    const followers = Math.floor(10 ** (1 + random() * 5));
    const user = x.addUser({
      username,
      name: `${username.replace('_', ' ')}`,
      followers,
      following: Math.floor(random() * 900),
      listed: Math.floor(followers / 50),
      protected: i % 40 === 7,
      description: 'A simulated X account for the perch demo',
    });
    const posts = Math.floor(random() * 6);
    for (let p = 0; p < posts; p++) {
      x.addPost(user.id, xPost(random, pastDate(random)));
    }
    if (i % 60 === 11) x.suspend(user.id);
    if (i % 60 === 23) x.remove(user.id);
    rows.push(`${username},x,${i % 3 === 0 ? 'press' : 'founders'}`);
  }
  for (let i = 0; i < blueskyCount; i++) {
    const handle = `${pick(WORDS, random)}${i}.bsky.social`;
    const user = bsky.addUser({
      handle,
      displayName: handle.split('.')[0],
      followers: Math.floor(10 ** (1 + random() * 4)),
      follows: Math.floor(random() * 500),
      description: 'A simulated Bluesky account for the perch demo',
    });
    const posts = Math.floor(random() * 6);
    for (let p = 0; p < posts; p++) {
      bsky.addPost(user.did, blueskyPost(random, pastDate(random)));
    }
    if (i % 50 === 13) bsky.takedown(user.did);
    if (i % 50 === 29) bsky.deactivate(user.did);
    rows.push(`${handle},bluesky,${i % 2 === 0 ? 'science' : 'arts'}`);
  }
  // From here on the world's changes go out live, as Bluesky's Jetstream sends them.
  const jetstream = await startFakeJetstream();
  streamWorld(bsky, jetstream);
  return {
    x,
    bsky,
    csv: `${rows.join('\n')}\n`,
    jetstream,
    fans: new Map(),
    close: async () => void (await Promise.all([x.close(), bsky.close(), jetstream.close()])),
  };
}

let fanSeq = 0;

/**
 * Now and then someone new follows a Bluesky account, or one who came leaves again: real follow
 * records, so the follows stream shows them within seconds (the account page's "New followers").
 */
function follows(sim: Simulation, did: string, random: () => number): void {
  const list = sim.fans.get(did) ?? [];
  if (random() < 0.02) {
    fanSeq += 1;
    const fan = sim.bsky.addUser({ handle: `${pick(WORDS, random)}fan${fanSeq}.bsky.social` });
    sim.bsky.follow(fan.did, did);
    list.push(fan.did);
    sim.fans.set(did, list);
  } else if (list.length > 0 && random() < 0.005) {
    const [gone] = list.splice(Math.floor(random() * list.length), 1);
    if (gone !== undefined) sim.bsky.unfollow(gone, did);
  }
}

/**
 * One step of life: followers drift, a tenth of the accounts post, recent posts gather likes (so
 * the tracker's post refresh has something to see), now and then one is renamed or suspended,
 * and Bluesky accounts gain and lose followers on the follow graph.
 */
export function evolve(sim: Simulation, random: () => number = Math.random): void {
  for (const user of [...sim.x.world.usersById.values()]) {
    if (user.state === 'removed') continue;
    const drift = Math.round(user.followers * (random() - 0.4) * 0.01) + Math.floor(random() * 3);
    sim.x.updateUser(user.id, { followers: Math.max(0, user.followers + drift) });
    for (const post of user.timeline.slice(-3))
      sim.x.updatePost(post.id, { likes: post.likes + Math.floor(random() * 20) });
    if (random() < 0.1 && !user.protected) {
      sim.x.addPost(user.id, xPost(random));
    }
    if (user.state !== 'active') continue;
    // Now and then an account is suspended, so a webhook sees account.status_changed within minutes.
    if (random() < 0.0005) {
      sim.x.suspend(user.id);
      continue;
    }
    if (random() < 0.002) {
      try {
        sim.x.rename(user.id, `${pick(WORDS, random)}_${user.id.slice(-6)}`);
      } catch {
        // the name is taken: no rename this time
      }
    }
  }
  const fans = new Set([...sim.fans.values()].flat());
  for (const user of [...sim.bsky.allUsers()]) {
    if (user.status !== 'active' || fans.has(user.did)) continue;
    follows(sim, user.did, random);
    sim.bsky.updateUser(user.did, { followers: Math.max(0, user.followers + Math.floor(random() * 5) - 1) });
    for (const post of sim.bsky.recentPosts(user.did, 3))
      sim.bsky.updatePost(post.uri, { likes: post.likes + Math.floor(random() * 10) });
    if (random() < 0.1) {
      sim.bsky.addPost(user.did, blueskyPost(random));
    }
  }
}
