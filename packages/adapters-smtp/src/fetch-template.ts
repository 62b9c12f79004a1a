/** Limits on one template fetch. */
export interface FetchTemplateLimits {
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/**
 * Fetches one HTML template, bounded: http(s) only, redirects refused (a redirect could point at an internal
 * address the operator never named), non-2xx refused, the whole exchange limited in time, and the body read as a
 * stream and abandoned past `maxBytes` whatever Content-Length claimed. Throws on any of these.
 */
export async function fetchTemplate(url: string, limits: FetchTemplateLimits): Promise<string> {
  const target = new URL(url);
  if (target.protocol !== "http:" && target.protocol !== "https:") throw new Error("not an http(s) URL");
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const deadline = { signal, message: `timed out after ${limits.timeoutMs} ms` };
  const response = await untilAborted(
    limits.fetch(target, { redirect: "error", signal, headers: { accept: "text/html" } }),
    deadline,
  );
  if (!response.ok) {
    void response.body?.cancel().catch(() => undefined);
    throw new Error(`answered with status ${response.status}`);
  }
  return readCapped(response, limits.maxBytes, deadline);
}

interface Deadline {
  readonly signal: AbortSignal;
  readonly message: string;
}

async function readCapped(response: Response, maxBytes: number, deadline: Deadline): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = "";
  try {
    for (;;) {
      const { done, value } = await untilAborted(reader.read(), deadline);
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw new Error(`template is larger than ${maxBytes} bytes`);
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    // Stop the download: the rest of an oversized or late body is never read.
    void reader.cancel().catch(() => undefined);
    throw error;
  }
  text += decoder.decode();
  // An empty 200 is a broken template server, not a template: the mail would arrive without a body.
  if (text.trim() === "") throw new Error("template is empty");
  return text;
}

// The signal bounds the exchange even when an injected fetch (or a stream) ignores it.
function untilAborted<T>(work: Promise<T>, { signal, message }: Deadline): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error(message));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
