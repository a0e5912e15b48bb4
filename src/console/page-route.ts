/** What a console page is: a route whose handler gets the signed-in operator and the operations. */
import type { AdminClient } from '../server/admin-operations.js';
import type { SafeHtml } from './html.js';
import type { Signed } from './layout.js';

/** The admin operations, as the CLI calls them. */
export type Operations = Pick<AdminClient, 'call'>;

/** What a page handler gets. */
export interface PageContext {
  readonly signed: Signed;
  /** The operations with the writes audited as this operator's. */
  readonly operations: Operations;
  /** A POST's form fields; empty for a GET. */
  readonly form: URLSearchParams;
  readonly params: Readonly<Record<string, string>>;
}

/** A page (status 200), or a page with another status (a refusal, a missing record). */
export type PageAnswer = SafeHtml | { readonly status: number; readonly page: SafeHtml };

export interface PageRoute {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  handle(context: PageContext): Promise<PageAnswer>;
}
