import type { EnvKey } from "./env-schema.ts";

/** Spec names that are also read without a prefix. The OTEL_ ones are the OpenTelemetry SDK's standard names. */
const UNPREFIXED: ReadonlySet<string> = new Set([
  "PORT",
  "DATABASE_URL",
  "REDIS_URL",
  "LOG_LEVEL",
  "OTEL_EXPORTER_PROMETHEUS_HOST",
  "OTEL_EXPORTER_PROMETHEUS_PORT",
  "OTEL_SERVICE_NAME",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_RESOURCE_ATTRIBUTES",
]);

/** The specification's second name for a variable. */
const ALTERNATIVES: Readonly<Record<string, string>> = {
  PORT: "API_PORT",
  DATABASE_URL: "DB_DATABASE_URL",
};

/**
 * compat: names GoTrue reads that GOTRUE_<NAME> does not cover. Supabase's self-hosting compose file sets
 * API_EXTERNAL_URL without a prefix; GoTrue reads the request id header as GOTRUE_API_REQUEST_ID_HEADER.
 */
const GOTRUE_ONLY: Readonly<Record<string, readonly string[]>> = {
  API_EXTERNAL_URL: ["API_EXTERNAL_URL"],
  REQUEST_ID_HEADER: ["GOTRUE_API_REQUEST_ID_HEADER", "REQUEST_ID_HEADER"],
};

/** The variable names read for a key, the first set one winning: AUTH_ names, then unprefixed, then GoTrue's. */
export function candidateNames(key: EnvKey): readonly string[] {
  const spelled = [key, ...(ALTERNATIVES[key] === undefined ? [] : [ALTERNATIVES[key]])];
  return [
    ...spelled.map((name) => `AUTH_${name}`),
    ...(UNPREFIXED.has(key) ? [key] : []),
    ...spelled.map((name) => `GOTRUE_${name}`),
    ...(GOTRUE_ONLY[key] ?? []),
  ];
}

/** A variable as the operator set it. */
export interface SetVariable {
  readonly name: string;
  readonly value: string;
}

/** What was set for each key; keys without a set variable are absent. */
export type ResolvedEnv = ReadonlyMap<EnvKey, SetVariable>;

/** Each key from the first source that sets it under any of its names; within a source, the first name wins. */
export function resolveEnv(keys: readonly EnvKey[], sources: readonly Readonly<Record<string, string>>[]): ResolvedEnv {
  const resolved = new Map<EnvKey, SetVariable>();
  for (const key of keys) {
    const found = sources
      .flatMap((variables) => candidateNames(key).map((name) => ({ name, value: variables[name] })))
      .find((candidate): candidate is SetVariable => candidate.value !== undefined);
    if (found) resolved.set(key, found);
  }
  return resolved;
}

/** The name to show for a key: the one the operator used, else the specification's. */
export function displayName(env: ResolvedEnv, key: EnvKey): string {
  return env.get(key)?.name ?? (UNPREFIXED.has(key) ? key : `AUTH_${key}`);
}
