// Entities of a Bluesky post from its app.bsky.richtext.facet annotations: hashtags, mentions and
// link domains, the same three lists X gives in `entities`.
import type { PlatformPost } from './types.ts';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * Hashtags, mentions and link domains from app.bsky.richtext.facet. A mention facet carries
 * only a DID, so the handle is read from the text it covers; `byteStart`/`byteEnd` index the
 * UTF-8 bytes of the text, not its UTF-16 code units (lexicons/app/bsky/richtext/facet.json).
 */
export function facetEntities(
  postText: string,
  facets: unknown,
): Pick<PlatformPost, 'hashtags' | 'mentions' | 'domains'> {
  const found = { hashtags: [] as string[], mentions: [] as string[], domains: [] as string[] };
  if (!Array.isArray(facets)) return found;
  let bytes: Buffer | null = null;
  for (const facet of facets) {
    if (!isRecord(facet) || !Array.isArray(facet.features)) continue;
    for (const feature of facet.features) {
      if (!isRecord(feature)) continue;
      if (feature.$type === 'app.bsky.richtext.facet#tag') {
        const tag = text(feature.tag);
        if (tag !== null) found.hashtags.push(tag.replace(/^#/, ''));
      } else if (feature.$type === 'app.bsky.richtext.facet#link') {
        const domain = domainOf(feature.uri);
        if (domain !== null) found.domains.push(domain);
      } else if (feature.$type === 'app.bsky.richtext.facet#mention') {
        bytes ??= Buffer.from(postText, 'utf8');
        const handle = mentionedHandle(bytes, facet.index);
        if (handle !== null) found.mentions.push(handle);
      }
    }
  }
  return found;
}

function mentionedHandle(bytes: Buffer, index: unknown): string | null {
  if (!isRecord(index)) return null;
  const { byteStart, byteEnd } = index;
  if (!Number.isSafeInteger(byteStart) || !Number.isSafeInteger(byteEnd)) return null;
  const start = byteStart as number;
  const end = byteEnd as number;
  if (start < 0 || end <= start || end > bytes.length) return null;
  const handle = bytes.subarray(start, end).toString('utf8').trim().replace(/^@/, '');
  return /^[^\s@]+$/.test(handle) ? handle : null;
}

function domainOf(uri: unknown): string | null {
  if (typeof uri !== 'string') return null;
  try {
    const host = new URL(uri).hostname.toLowerCase();
    return host === '' ? null : host.replace(/^www\./, '');
  } catch {
    return null;
  }
}
