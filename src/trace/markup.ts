/**
 * HTML built with a tagged template that escapes by default: every interpolated value is text
 * unless it is markup this module made (an `html` result, or `raw()` for a trusted string), so a
 * forgotten escape cannot put a trace's content into the page as markup.
 */

/** Markup, safe to put in a page as it is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/**
 * What an `html` template takes: markup (put in as it is), lists (each part rendered), null,
 * undefined and false (nothing), and anything else as text (escaped).
 */
export type Part = unknown;

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Trusted markup (the page's own CSS and script, a fixed fragment), put in unescaped. */
export function raw(text: string): Html {
  return new Html(text);
}

function render(part: unknown): string {
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false) return '';
  return escapeHtml(part);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0];
  for (let i = 0; i < values.length; i++) text += render(values[i]) + strings[i + 1];
  return new Html(text);
}

/** Markup joined with `separator` (itself markup). */
export function join(parts: readonly unknown[], separator = ''): Html {
  return new Html(parts.map(render).join(separator));
}
