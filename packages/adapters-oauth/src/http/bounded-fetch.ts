/** GoTrue's limit on a call to a provider (GOTRUE_INTERNAL_HTTP_TIMEOUT's default). */
export const PROVIDER_TIMEOUT_MS = 10_000;
/** No provider answer we read (tokens, a profile, a key set, discovery) comes near this. */
const PROVIDER_MAX_BYTES = 1024 * 1024;

export interface ProviderHttpOptions {
  /** Per call; 10 s by default. */
  readonly timeoutMs?: number;
  /** Of an answer's body; 1 MiB by default. */
  readonly maxBytes?: number;
  /** For tests; the global fetch by default. */
  readonly fetch?: typeof globalThis.fetch;
}

/**
 * A fetch for calls to providers: bounded in time (the signal also bounds reading the body) and in size, and
 * never following a redirect, so that a provider's answer cannot send our request, with its credentials, to
 * another host. A redirect comes back as the 3xx it is, which callers treat as a failure.
 */
export function boundedFetch(options: ProviderHttpOptions = {}): typeof globalThis.fetch {
  const timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? PROVIDER_MAX_BYTES;
  const fetchFn = options.fetch ?? globalThis.fetch;
  return async (input, init) => {
    const signal = init?.signal
      ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)])
      : AbortSignal.timeout(timeoutMs);
    const response = await fetchFn(input, { ...init, redirect: "manual", signal });
    const body = await readLimited(response, maxBytes);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

async function readLimited(response: Response, maxBytes: number): Promise<Uint8Array | null> {
  if (response.body === null || [101, 204, 205, 304].includes(response.status)) return null;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error(`the answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
