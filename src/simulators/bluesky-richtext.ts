// Bluesky rich text as the AppView returns it: the post text and its facets (tags, mentions, links).
import { base32, digest } from './bluesky-ids.ts';
import type { NewPost } from './bluesky-types.ts';

/**
 * The text with every tag, mention and link present, and their facets over UTF-8 byte ranges;
 * `didOf` names a mentioned handle's DID when the world knows it.
 */
export function richText(
  input: NewPost,
  didOf: (handle: string) => string | null,
): { text: string; facets: unknown[] } {
  let text = input.text;
  const facets: unknown[] = [];
  const add = (needle: string, feature: Record<string, unknown>) => {
    let at = text.indexOf(needle);
    if (at < 0) {
      text = `${text} ${needle}`;
      at = text.length - needle.length;
    }
    const byteStart = Buffer.byteLength(text.slice(0, at), 'utf8');
    facets.push({
      index: { byteStart, byteEnd: byteStart + Buffer.byteLength(needle, 'utf8') },
      features: [feature],
    });
  };
  for (const tag of input.tags ?? []) add(`#${tag}`, { $type: 'app.bsky.richtext.facet#tag', tag });
  for (const handle of input.mentions ?? []) {
    const did = didOf(handle) ?? `did:plc:${base32(digest(handle), 24)}`;
    add(`@${handle}`, { $type: 'app.bsky.richtext.facet#mention', did });
  }
  for (const uri of input.links ?? []) add(uri, { $type: 'app.bsky.richtext.facet#link', uri });
  return { text, facets };
}
