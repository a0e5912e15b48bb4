/**
 * The platform types the package's declarations name — a cancellation signal, `fetch` and its
 * response, headers, a private key object — written so that a consumer type-checks against them
 * with neither `@types/node` nor the DOM library: TypeScript 6 and later load no `@types/*`
 * package unless `types` lists it, and a server project's `lib` often leaves the DOM out.
 *
 * Where the consumer's program declares the real global (from `@types/node` or the DOM library),
 * each type here resolves to it, so nothing changes for a project that has them; where it does
 * not, to the members this package uses. Node's `KeyObject` is no global: it is described by
 * shape, and a `crypto.KeyObject` is one. Only types live here; the package still runs on Node.
 */

/** The instance type of the global constructor `Name` when the program declares one, else `Fallback`. */
type GlobalInstance<Name extends string, Fallback> =
  typeof globalThis extends Record<Name, { prototype: infer Instance }> ? Instance : Fallback;

/** What the package reads of an `AbortSignal` when no global one is declared. */
interface AbortSignalShape {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** What the package reads of a `Headers` when no global one is declared. */
interface HeadersShape {
  get(name: string): string | null;
}

/** What the package reads of a fetch `Response` when no global one is declared. */
interface ResponseShape {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: HeadersShape;
  readonly body: { cancel(): Promise<void> } | null;
  text(): Promise<string>;
}

/** How the package calls `fetch` when no global one is declared. */
type FetchShape = (
  url: string,
  init: {
    readonly method: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body?: string;
    readonly signal: AbortSignalShape;
  },
) => Promise<ResponseShape>;

/** An `AbortSignal` (the global one where the program declares it). */
export type AbortSignalLike = GlobalInstance<'AbortSignal', AbortSignalShape>;

/** A fetch `Response` (the global one where the program declares it). */
export type FetchResponse = GlobalInstance<'Response', ResponseShape>;

/** Fetch's `Headers` (the global one where the program declares it). */
export type HeadersLike = GlobalInstance<'Headers', HeadersShape>;

/** A `fetch` function (the global one's type where the program declares it). */
export type FetchFunction = typeof globalThis extends { readonly fetch: infer Fetch } ? Fetch : FetchShape;

/**
 * A private key held by Node's crypto (`crypto.KeyObject`, e.g. `generateKeyPairSync(…).privateKey`
 * or `createPrivateKey(pem)`), described by the members that tell it apart from a JWK.
 */
export interface PrivateKeyObject {
  readonly type: 'secret' | 'public' | 'private';
  readonly asymmetricKeyType?: string | undefined;
  export(options: { format: 'jwk' }): object;
}
