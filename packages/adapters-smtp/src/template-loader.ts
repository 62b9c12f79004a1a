import { type FetchTemplateLimits, fetchTemplate } from "./fetch-template.ts";
import type { TemplateOptions } from "./options.ts";

export interface TemplateLoader {
  /** The template at `url`, or undefined when it cannot be had (the caller then uses the built-in body). */
  load(url: string): Promise<string | undefined>;
}

interface CacheEntry {
  readonly template: string | undefined;
  readonly expiresAt: number;
}

/**
 * Loads templates by URL with a cache: successes are reused for `templateCacheMs`, failures for the shorter
 * `templateFailureCacheMs` so that a dead template server costs one timeout now and then rather than one per mail,
 * and concurrent loads of one URL share a single fetch.
 */
export function createTemplateLoader(options: TemplateOptions): TemplateLoader {
  const now = options.now ?? Date.now;
  const cacheMs = options.templateCacheMs ?? 10 * 60_000;
  const failureCacheMs = options.templateFailureCacheMs ?? 30_000;
  const limits: FetchTemplateLimits = {
    // Called through a wrapper: a bare reference to a platform fetch may reject a foreign `this`.
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    timeoutMs: options.templateTimeoutMs ?? 5_000,
    maxBytes: options.templateMaxBytes ?? 512 * 1024,
  };
  const cache = new Map<string, CacheEntry>();
  const pending = new Map<string, Promise<string | undefined>>();

  function remember(url: string, template: string | undefined, ttlMs: number): string | undefined {
    cache.set(url, { template, expiresAt: now() + ttlMs });
    return template;
  }

  function report(url: string, error: unknown): void {
    try {
      options.onTemplateError?.(url, describe(error));
    } catch {
      // A failing logger must not fail the mail.
    }
  }

  return {
    load(url) {
      const cached = cache.get(url);
      if (cached && cached.expiresAt > now()) return Promise.resolve(cached.template);
      const running = pending.get(url);
      if (running) return running;
      const loading = fetchTemplate(url, limits)
        .then(
          (template) => remember(url, template, cacheMs),
          (error: unknown) => {
            report(url, error);
            return remember(url, undefined, failureCacheMs);
          },
        )
        .finally(() => pending.delete(url));
      pending.set(url, loading);
      return loading;
    },
  };
}

// undici reports most failures as "fetch failed" with the reason ("unexpected redirect", ECONNREFUSED) as cause.
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
