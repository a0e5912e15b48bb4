/** A JSON object (not `null`, not an array): the first check on any parsed body or answer. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
