/**
 * The console's page shell and form parts: one layout with the navigation bar, and
 * fields that carry their label and their error (`aria-describedby`), so that every page
 * reads the same to a keyboard and a screen reader.
 */
import { html, type SafeHtml } from './html.js';

/** The pages of the navigation bar, in its order. */
export const NAVIGATION = [
  ['Overview', '/console'],
  ['Clients', '/console/clients'],
  ['Institutions', '/console/institutions'],
  ['Customers', '/console/customers'],
  ['Webhooks', '/console/webhooks'],
  ['Keys', '/console/keys'],
  ['Audit', '/console/audit'],
] as const;

export type PageName = (typeof NAVIGATION)[number][0];

/** What every signed-in page knows about its request. */
export interface Signed {
  readonly operator: string;
  /** The session's form token: every form carries it. */
  readonly formToken: string;
}

export const STYLESHEET_PATH = '/console/console.css';

function document(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} — coregate console</title>
        <link rel="stylesheet" href="${STYLESHEET_PATH}" />
      </head>
      <body>
        ${body}
      </body>
    </html> `;
}

/** A signed-in page: the navigation (the current page marked), the operator, a sign-out button. */
export function page(current: PageName, signed: Signed, content: SafeHtml, heading: string = current): SafeHtml {
  const links = NAVIGATION.map(
    ([name, path]) =>
      html`<li><a href="${path}" ${name === current ? html` aria-current="page"` : ''}>${name}</a></li>`,
  );
  return document(
    heading,
    html`<header class="bar">
        <a class="skip" href="#main">Skip to content</a>
        <p class="brand">coregate console</p>
        <nav aria-label="Console">
          <ul>
            ${links}
          </ul>
        </nav>
        <form class="signout" method="post" action="/console/sign-out">
          ${hiddenToken(signed)}<span class="operator">Signed in as ${signed.operator}</span>
          <button type="submit">Sign out</button>
        </form>
      </header>
      <main id="main">
        <h1>${heading}</h1>
        ${content}
      </main>`,
  );
}

/** A page for someone not signed in: a used link, an ended session. */
export function publicPage(title: string, content: SafeHtml): SafeHtml {
  return document(
    title,
    html`<header class="bar"><p class="brand">coregate console</p></header>
      <main id="main">
        <h1>${title}</h1>
        ${content}
      </main>`,
  );
}

/** How to get in again, on every page that turns someone away. */
export const HOW_TO_SIGN_IN = html`<p>Ask for a new sign-in link on the server:</p>
  <pre><code>bin/coregate console link --operator NAME</code></pre>
  <p>It prints a link that works once, for 5 minutes.</p>`;

function hiddenToken(signed: Signed): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${signed.formToken}" />`;
}

/** A POST form carrying the session's form token. */
export function form(
  signed: Signed,
  action: string,
  content: SafeHtml,
  button: string,
  options: { className?: string; label?: string } = {},
): SafeHtml {
  return html`<form
    method="post"
    action="${action}"
    ${options.className ? html` class="${options.className}"` : ''}${options.label ? html` aria-label="${options.label}"` : ''}
  >
    ${hiddenToken(signed)}${content}
    <button type="submit">${button}</button>
  </form>`;
}

/** The message the CLI would give for each field at fault (its flag name is the field's name). */
export type FieldErrors = ReadonlyMap<string, string>;

export interface FieldOptions {
  readonly name: string;
  readonly label: string;
  readonly value?: string | undefined;
  readonly hint?: string;
  readonly type?: 'text' | 'search' | 'datetime' | 'textarea';
  readonly required?: boolean;
  readonly errors?: FieldErrors | undefined;
  /** An HTML `pattern` or other input attributes are left out on purpose: the server's check is the one shown. */
  readonly autocomplete?: 'off';
}

/** A labelled field, its hint and its error tied to it with `aria-describedby`. */
export function field(options: FieldOptions): SafeHtml {
  const id = `field-${options.name}`;
  const error = options.errors?.get(options.name);
  const described = [options.hint ? `${id}-hint` : undefined, error ? `${id}-error` : undefined].filter(Boolean);
  const describedBy = described.length > 0 ? html` aria-describedby="${described.join(' ')}"` : '';
  const invalid = error ? html` aria-invalid="true"` : '';
  const required = options.required ? html` required` : '';
  const control =
    options.type === 'textarea'
      ? html`<textarea id="${id}" name="${options.name}" rows="3" ${describedBy}${invalid}>
${options.value ?? ''}</textarea>`
      : html`<input
          id="${id}"
          name="${options.name}"
          type="text"
          value="${options.value ?? ''}"
          autocomplete="off"
          ${describedBy}${invalid}${required}
        />`;
  return html`<div class="field${error ? ' has-error' : ''}">
    <label for="${id}">${options.label}</label>
    ${control} ${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ''}
    ${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
  </div>`;
}

/** A labelled choice among fixed values. */
export function select(options: {
  name: string;
  label: string;
  choices: readonly (readonly [string, string])[];
  value?: string | undefined;
  errors?: FieldErrors | undefined;
}): SafeHtml {
  const id = `field-${options.name}`;
  const error = options.errors?.get(options.name);
  const choices = options.choices.map(
    ([value, text]) =>
      html`<option value="${value}" ${value === options.value ? html` selected` : ''}>${text}</option>`,
  );
  return html`<div class="field${error ? ' has-error' : ''}">
    <label for="${id}">${options.label}</label>
    <select id="${id}" name="${options.name}" ${error ? html` aria-describedby="${id}-error" aria-invalid="true"` : ''}>
      ${choices}
    </select>
    ${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
  </div>`;
}

/** A notice at the top of a page: what just happened, or why nothing did. */
export function notice(kind: 'success' | 'failure', content: SafeHtml | string): SafeHtml {
  return kind === 'failure'
    ? html`<div class="notice failure" role="alert">${content}</div>`
    : html`<div class="notice success" role="status">${content}</div>`;
}

/** A table with a caption and column headers; an empty one says so. */
export function table(
  caption: string,
  header: readonly string[],
  rows: readonly (readonly (SafeHtml | string | number | null | undefined)[])[],
  empty: string,
): SafeHtml {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap" role="region" aria-label="${caption}" tabindex="0">
    <table>
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          ${header.map((name) => html`<th scope="col">${name}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (row) =>
            html`<tr>
              ${row.map((cell) => html`<td>${cell ?? '—'}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** A timestamp as people read it, in UTC and without milliseconds. */
export function when(iso: string | null | undefined): string | undefined {
  if (!iso) return undefined;
  return `${iso.slice(0, 19).replace('T', ' ')} UTC`;
}
