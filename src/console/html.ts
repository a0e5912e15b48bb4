/**
 * HTML by tagged template, escaped by default: `html\`<td>${name}</td>\`` escapes `name`;
 * only another `html` fragment (or an array of them) goes in as markup. Pages are typed
 * functions, so the compiler checks every value a page shows.
 *
 * Written here rather than taken from npm: the tagged-template packages found either join
 * arrays without escaping their strings (html-template-tag) or drop values interpolated
 * into `href` and `action`, which every link and form of the console needs; the five
 * replacements below are the whole of HTML text and attribute escaping (HTML Living Standard,
 * 13.1.2.6: attribute values are always written here in double quotes).
 */

/** Markup that is already safe: made by {@link html}, never from a string. */
export class SafeHtml {
  /** @internal */
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

function render(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return (value as readonly Interpolation[]).map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): SafeHtml {
  let markup = strings[0] ?? '';
  values.forEach((value, index) => {
    markup += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(markup);
}
