// The text models of post analysis (domain/post-text.ts), loaded on the tracker's first check, not
// at start: wink-nlp with its English model and eld's language data add about 100 MiB to a process,
// which `perch api` (and `perch serve` with TRACKER=off) never needs. Both are pure JavaScript with
// their data inside the npm package (no download, no native code).
import type { TextModels } from '../domain/post-text.ts';

let loading: Promise<TextModels> | null = null;

/** The models, loaded once per process; a failed load is tried again on the next call. */
export function loadTextModels(): Promise<TextModels> {
  loading ??= load().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

async function load(): Promise<TextModels> {
  const [{ default: winkNLP }, { default: model }, { eld }] = await Promise.all([
    import('wink-nlp'),
    import('wink-eng-lite-web-model'),
    import('eld/extrasmall'),
  ]);
  // Only the pipes sentiment needs: sentence breaks and negation ("not good" scores negative).
  // Skipping POS and NER doubles the throughput (~100k short posts/s on one core).
  const nlp = winkNLP(model, ['sbd', 'negation', 'sentiment']);
  const sentiment = nlp.its.sentiment;
  return {
    sentiment: (text) => Number(nlp.readDoc(text).out(sentiment)),
    language: (text) => {
      const result = eld.detect(text);
      return { language: result.language, reliable: result.isReliable() };
    },
  };
}
