import { AuthError, type HookCaller, type HookName } from "@latchkey/domain";
import { context, type Meter, SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";

/** Hooks answer in milliseconds to seconds (an HTTP hook may take 5 s and retry): buckets in seconds around that. */
const HOOK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What observes hook calls: a tracer (TRACING_ENABLED) and a meter (METRICS_ENABLED), either or both. */
export interface HookObservers {
  readonly tracer?: Tracer | undefined;
  readonly meter?: Meter | undefined;
}

/** Why a call failed, for the span and the failures counter: the code the client hears, never the hook's words. */
function reasonOf(error: unknown): string {
  return error instanceof AuthError ? error.code : "unexpected_failure";
}

/**
 * The hook caller, each call a span (`auth hook <name>`: the hook, its kind and, on failure, the code the client
 * hears) and timed: `auth.hook.duration` (seconds) by `hook` and `outcome`, and `auth.hook.failures` by `hook` and
 * `reason`. Neither carries the payload, the answer or the URI's secrets.
 */
export function observedHook(name: HookName, caller: HookCaller, { tracer, meter }: HookObservers): HookCaller {
  const kind = caller.uri.startsWith("pg-functions:") ? "postgres" : "http";
  const duration = meter?.createHistogram("auth.hook.duration", {
    unit: "s",
    description: "How long a call of an auth hook took, retries included.",
    advice: { explicitBucketBoundaries: HOOK_BUCKETS },
  });
  const failures = meter?.createCounter("auth.hook.failures", { description: "Auth hook calls that failed." });
  return {
    uri: caller.uri,
    async call(payload, stores) {
      const span = tracer?.startSpan(
        `auth hook ${name}`,
        { kind: SpanKind.CLIENT, attributes: { "auth.hook.name": name, "auth.hook.kind": kind } },
        context.active(),
      );
      const started = performance.now();
      try {
        const answer = await caller.call(payload, stores);
        duration?.record((performance.now() - started) / 1000, { hook: name, outcome: "success" });
        return answer;
      } catch (error) {
        const reason = reasonOf(error);
        duration?.record((performance.now() - started) / 1000, { hook: name, outcome: "failure" });
        failures?.add(1, { hook: name, reason });
        span?.setAttribute("error.type", reason);
        span?.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span?.end();
      }
    },
  };
}
