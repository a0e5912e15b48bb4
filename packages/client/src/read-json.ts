import type { FetchResponse } from './platform-types.js';
/** The body as a JSON object, or undefined when it is not one (a proxy's HTML page, an empty body). */
export async function readJson(response: FetchResponse): Promise<Record<string, unknown> | undefined> {
  const text = await response.text();
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
