/** Reading untrusted JSON: shared by the domain's validators and the adapters that read a core's answers. */

/** A JSON object: not `null`, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
