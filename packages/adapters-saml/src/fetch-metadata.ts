import { AuthError } from "@latchkey/domain";

export interface FetchLimits {
  /** The whole request: connecting, the answer's headers and reading its body. */
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

const failed = (message: string, cause?: unknown) => new AuthError("saml_metadata_fetch_failed", message, { cause });

/**
 * The metadata document at `url` as UTF-8 text (GoTrue asks for it so too), following redirects. Bytes that are
 * not UTF-8 become U+FFFD, which parsing then refuses with GoTrue's message. Throws AuthError
 * `saml_metadata_fetch_failed`, saying why.
 */
export async function fetchMetadata(url: string, limits: FetchLimits): Promise<string> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  // Aborting, not just cancelling the reader, makes undici close the connection of a body over the cap.
  const tooLarge = new AbortController();
  try {
    const response = await fetch(url, {
      headers: { Accept: "application/xml;charset=UTF-8", "Accept-Charset": "UTF-8" },
      signal: AbortSignal.any([deadline, tooLarge.signal]),
    });
    if (response.status !== 200) {
      void response.body?.cancel().catch(() => undefined);
      throw failed(`HTTP ${response.status} error fetching SAML Metadata from URL '${url}'`);
    }
    return await readCapped(response, limits.maxBytes, tooLarge);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    if (deadline.aborted) {
      throw failed(`Fetching SAML Metadata from URL '${url}' took longer than ${limits.timeoutMs} ms`, error);
    }
    if (tooLarge.signal.aborted) {
      throw failed(`SAML Metadata from URL '${url}' is larger than ${limits.maxBytes} bytes`, error);
    }
    throw failed(`Could not fetch SAML Metadata from URL '${url}': ${reason(error)}`, error);
  }
}

async function readCapped(response: Response, maxBytes: number, tooLarge: AbortController): Promise<string> {
  // A declared length over the cap is refused before a byte of the body is read.
  if (Number(response.headers.get("content-length") ?? 0) > maxBytes) tooLarge.abort();
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder("utf-8");
  let size = 0;
  let text = "";
  for (;;) {
    tooLarge.signal.throwIfAborted();
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > maxBytes) tooLarge.abort();
    text += decoder.decode(value, { stream: true });
  }
}

/** fetch's own message is a terse "fetch failed": the cause says what failed (ECONNREFUSED, a DNS miss). */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  return cause ?? message;
}
