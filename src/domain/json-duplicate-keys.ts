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

/** What {@link scanJsonText} finds in one pass over a JSON text. */
export interface JsonTextFacts {
  /** Some object names a member twice (names compared after unescaping). */
  readonly duplicateKey: boolean;
  /**
   * Some number is an integer of more than 15 digits, which a double may not hold exactly:
   * only such a text needs a parser that keeps a number's digits.
   */
  readonly longInteger: boolean;
}

/** Digits every integer of which a double holds exactly (Number.MAX_SAFE_INTEGER has 16). */
const SAFE_DIGITS = 15;

/** A digit, `.`, `e`, `E`, `+` or `-`: what a JSON number is written with. */
function isNumberPart(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || code === 0x2e || code === 0x65 || code === 0x45 || code === 0x2b || code === 0x2d
  );
}

/**
 * One pass over `text` for duplicate member names and long integers, without building paths:
 * the cheap check for a reader that needs only a yes or a no. Stops at the first duplicate.
 * `text` must already have been parsed as JSON: only its structure is followed here.
 */
export function scanJsonText(text: string): JsonTextFacts {
  // Per open object, the names seen; `undefined` per open array.
  const stack: Array<Set<string> | undefined> = [];
  let expectName = false;
  let longInteger = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (char === 0x22 /* " */) {
      let end = i + 1;
      let escaped = false;
      for (let code = text.charCodeAt(end); code !== 0x22; code = text.charCodeAt(end)) {
        if (code === 0x5c /* \ */) {
          escaped = true;
          end += 2;
        } else end += 1;
      }
      if (expectName) {
        const names = stack[stack.length - 1]!;
        const name = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
        if (names.has(name)) return { duplicateKey: true, longInteger };
        names.add(name);
        expectName = false;
      }
      i = end;
    } else if ((char >= 0x30 && char <= 0x39) /* 0-9 */ || char === 0x2d /* - */) {
      const start = char === 0x2d ? i + 1 : i;
      let end = start;
      while (end < text.length && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x39) end += 1;
      const next = text.charCodeAt(end);
      // A fraction or an exponent makes a double in every reader: only whole digit runs count.
      if (end - start > SAFE_DIGITS && next !== 0x2e /* . */ && next !== 0x65 /* e */ && next !== 0x45 /* E */)
        longInteger = true;
      while (end < text.length && isNumberPart(text.charCodeAt(end))) end += 1;
      i = end - 1;
    } else if (char === 0x7b /* { */) {
      stack.push(new Set());
      expectName = true;
    } else if (char === 0x5b /* [ */) {
      stack.push(undefined);
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      stack.pop();
      expectName = false;
    } else if (char === 0x2c /* , */) {
      expectName = stack[stack.length - 1] !== undefined;
    }
  }
  return { duplicateKey: false, longInteger };
}
