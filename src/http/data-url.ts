// Decodes a `data:` URL (RFC 2397) holding CSV, as accepted in the JSON form of the insert route.
import { importTooLarge, notUtf8 } from '../domain/csv-import.ts';
import { PerchError } from '../domain/errors.ts';

const DATA_URL = /^data:([^,]*?)(;base64)?,/i;

export function decodeDataUrl(url: string, maxBytes: number): string {
  const match = DATA_URL.exec(url);
  if (!match)
    throw new PerchError('invalid_encoding', 'The data URL is malformed: expected data:text/csv;base64,<data>.');
  const payload = url.slice(match[0].length);
  let bytes: Buffer;
  if (match[2]) {
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(payload))
      throw new PerchError('invalid_encoding', 'The data URL is not valid base64.');
    bytes = Buffer.from(payload, 'base64');
  } else {
    try {
      bytes = Buffer.from(decodeURIComponent(payload), 'utf8');
    } catch {
      throw new PerchError('invalid_encoding', 'The data URL has invalid percent-encoding.');
    }
  }
  if (bytes.length > maxBytes) throw importTooLarge(maxBytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw notUtf8();
  }
}
