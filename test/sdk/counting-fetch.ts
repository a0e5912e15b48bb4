/** A `fetch` for the client that counts what it sends and what comes back, by path. */
export interface CountingFetch {
  readonly fetch: typeof fetch;
  /** Requests sent to `path` (e.g. `/oauth2/token`), optionally only those answered `status`. */
  count(path: string, status?: number): number;
  reset(): void;
}

export function countingFetch(): CountingFetch {
  let seen: Array<{ path: string; status: number | undefined }> = [];
  return {
    async fetch(input, init) {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const entry: { path: string; status: number | undefined } = { path: url.pathname, status: undefined };
      seen.push(entry);
      const response = await fetch(input, init);
      entry.status = response.status;
      return response;
    },
    count(path, status) {
      return seen.filter((entry) => entry.path === path && (status === undefined || entry.status === status)).length;
    },
    reset() {
      seen = [];
    },
  };
}
