import { randomBytes } from "node:crypto";
import pg from "pg";
import { BENCH_PASSWORD } from "./fixtures.ts";

/** The claim both of the bench's custom_access_token hooks add to the claims they are sent. */
const ADDED_CLAIM = { user_role: "member" } as const;

/** A Standard Webhooks secret as GoTrue takes it, `v1,whsec_<base64 of 32 random bytes>`, made for the run. */
export const hookSecret = (): string => `v1,whsec_${randomBytes(32).toString("base64")}`;

/**
 * The pg-functions hook: a plpgsql function in the bench's database that returns the claims it is called with plus
 * `user_role`. Made before the server that calls it starts; its URI.
 */
export async function createHookFunction(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`
      CREATE SCHEMA IF NOT EXISTS bench_hooks;
      CREATE OR REPLACE FUNCTION bench_hooks.custom_access_token(event jsonb) RETURNS jsonb
      LANGUAGE plpgsql AS $$
      BEGIN
        RETURN jsonb_build_object('claims', jsonb_set(event->'claims', '{user_role}', '"${ADDED_CLAIM.user_role}"'));
      END;
      $$;
    `);
  } finally {
    await client.end();
  }
  return "pg-functions://postgres/bench_hooks/custom_access_token";
}

/**
 * Signs in once on the server at `url` and checks that its access token carries the hook's claim: a row of a hook
 * server measures the hook, not a server that ignores it.
 */
export async function checkHookRan(url: string, email: string): Promise<void> {
  const response = await fetch(`${url}/token?grant_type=password`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: BENCH_PASSWORD }),
  });
  const answer = (await response.json()) as { access_token?: string };
  const token = answer.access_token;
  if (!response.ok || token === undefined) {
    throw new Error(`a sign-in on the hook's server answered ${response.status}: ${JSON.stringify(answer)}`);
  }
  const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as object;
  if (!("user_role" in claims) || claims.user_role !== ADDED_CLAIM.user_role) {
    throw new Error(`the hook's claim is not in the access token: ${JSON.stringify(claims)}`);
  }
}
