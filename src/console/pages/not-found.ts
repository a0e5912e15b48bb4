import type { PageAnswer } from '../page-route.js';
import { html } from '../html.js';
import { notice, page, type PageName, type Signed } from '../layout.js';

/** A page for an id that names nothing (a removed client, a mistyped URL). */
export function notFoundPage(signed: Signed, current: PageName, message: string): PageAnswer {
  return { status: 404, page: page(current, signed, notice('failure', html`<p>${message}.</p>`)) };
}
