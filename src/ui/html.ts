// A typed, escaping `html` template: every interpolated value is escaped unless it is itself
// Html (a nested template), so markup can only come from template literals in our own code.

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false || part === true) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < parts.length; i += 1) out += render(parts[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/**
 * JSON for a `<script type="application/json">` element: `<` is escaped so no value can close the
 * element, and the browser never runs it (the CSP allows no inline script anyway).
 */
export function jsonData(id: string, value: unknown): Html {
  const json = JSON.stringify(value).replace(/</g, '\\u003c');
  return new Html(`<script type="application/json" id="${escapeHtml(id)}">${json}</script>`);
}
