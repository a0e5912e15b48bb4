/**
 * Duplicate member names in a JSON body. JSON.parse (and fastify's secure-json-parse) keep
 * the last of several values for one name, so `{"customerId": "a", "customerId": "b"}` would
 * be read as `b` here and perhaps as `a` by a proxy or a log reader before us: such a body is
 * refused instead (RFC 8259 §4 leaves its meaning open; I-JSON, RFC 7493 §2.3, forbids it).
 * Neither JSON.parse nor the parsers fastify uses report duplicates, and Node 20's reviver
 * does not see the source text, so this follows the text itself.
 */

/** Where in the body: member names, and indexes into arrays. */
export type JsonPath = ReadonlyArray<string | number>;

interface Frame {
  readonly path: JsonPath;
  /** Member names seen in an object; `undefined` for an array. */
  readonly names: Set<string> | undefined;
  expectName: boolean;
  index: number;
}

/**
 * The path of the first member whose name repeats one before it in the same object (names
 * compared after unescaping: `"a"` and `"\u0061"` are one name), or `undefined`. `text` must
 * already have been parsed as JSON: only its structure is followed here.
 */
export function firstDuplicateKey(text: string): JsonPath | undefined {
  const stack: Frame[] = [];
  let member: JsonPath = [];
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (char === 0x22 /* " */) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c /* \ */ ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.names !== undefined && top.expectName) {
        const raw = text.slice(i, end + 1);
        const name = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (top.names.has(name)) return [...top.path, name];
        top.names.add(name);
        top.expectName = false;
        member = [...top.path, name];
      }
      i = end;
    } else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      const top = stack[stack.length - 1];
      const path = top === undefined ? [] : top.names === undefined ? [...top.path, top.index] : member;
      stack.push({ path, names: char === 0x7b ? new Set() : undefined, expectName: char === 0x7b, index: 0 });
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      stack.pop();
    } else if (char === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.names !== undefined) top.expectName = true;
      else if (top !== undefined) top.index += 1;
    }
  }
  return undefined;
}
