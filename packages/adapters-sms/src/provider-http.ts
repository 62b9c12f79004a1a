import type { SmsProviderName, SmsSenderBaseOptions } from "./options.ts";
import { SmsProviderError } from "./sms-provider-error.ts";

/** Supabase's default for its SMS providers' requests. */
export const DEFAULT_SMS_TIMEOUT_MS = 10_000;

/** What the provider answered: the HTTP status and the body parsed as JSON (undefined when it is not JSON). */
export interface ProviderAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface ProviderHttp {
  /** POSTs form fields to `path` under the base URL; a network failure or timeout throws SmsProviderError. */
  postForm(
    path: string,
    fields: Readonly<Record<string, string>>,
    headers?: Readonly<Record<string, string>>,
  ): Promise<ProviderAnswer>;
}

/** The HTTP client of one provider: its base URL, the injected fetch, a bounded time per request. */
export function providerHttp(
  provider: SmsProviderName,
  defaultBaseUrl: string,
  options: SmsSenderBaseOptions,
): ProviderHttp {
  const baseUrl = (options.baseUrl ?? defaultBaseUrl).replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? DEFAULT_SMS_TIMEOUT_MS;
  const fetchFn = options.fetch ?? globalThis.fetch;
  return {
    async postForm(path, fields, headers = {}) {
      try {
        // The signal also bounds reading the body, so a provider that stalls mid-answer times out too.
        const response = await fetchFn(`${baseUrl}${path}`, {
          method: "POST",
          headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
          body: new URLSearchParams(fields).toString(),
          signal: AbortSignal.timeout(timeoutMs),
        });
        return { status: response.status, body: parseJson(await response.text()) };
      } catch (error) {
        const summary = isTimeout(error) ? `did not answer within ${timeoutMs} ms` : "could not be reached";
        throw new SmsProviderError(provider, summary, { cause: error });
      }
    },
  };
}

/** Whether an HTTP status is a success. */
export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * Whether an HTTP error status means the provider refuses this message for good: any 4xx (bad number, rejected
 * credentials, no balance) but a request timeout or a rate limit, which pass. 5xx and the rest may pass too.
 */
export function isRefusalStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}
