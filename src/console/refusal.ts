/** An admin operation's refusal, shown as the CLI shows it: the message, and each field's problem beside the field. */
import { AdminOperationFailed } from '../server/admin-operations.js';
import { html, type SafeHtml } from './html.js';
import { notice, type FieldErrors } from './layout.js';

export interface Refusal {
  readonly message: string;
  /** By the CLI flag's name, which is the form field's name. */
  readonly fields: FieldErrors;
}

/** Runs `work`; a refusal (bad input, unknown id) is returned, anything else thrown. */
export async function attempt<T>(
  work: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; refusal: Refusal }> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (!(error instanceof AdminOperationFailed)) throw error;
    return {
      ok: false,
      refusal: { message: error.message, fields: new Map(error.problems.map((p) => [p.path, p.message])) },
    };
  }
}

/** The refusal's notice: its message, and the problems no field of the form shows. */
export function refusalNotice(refusal: Refusal, shownFields: readonly string[] = []): SafeHtml {
  const others = [...refusal.fields].filter(([path]) => !shownFields.includes(path));
  return notice(
    'failure',
    html`<p>${refusal.message}. Nothing was changed.</p>
      ${
        others.length > 0
          ? html`<ul>
              ${others.map(([path, message]) => html`<li>${path}: ${message}</li>`)}
            </ul>`
          : ''
      }`,
  );
}
