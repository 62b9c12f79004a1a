import type { Fixtures } from "./fixtures.ts";
import { BENCH_PASSWORD } from "./fixtures.ts";
import type { LoadShape } from "./load.ts";

const json = { "content-type": "application/json" };

/** Round robin over `items`, shared by every connection. */
function cycle<T>(items: readonly T[]): () => T {
  let next = 0;
  return () => items[next++ % items.length]!;
}

/**
 * One request per session, each connection going round them. They are fixed, so autocannon builds each once, as it
 * does the floor's: a setupRequest would have it build every request again, on the cores the server shares.
 */
export function getUser(accessTokens: readonly string[]): LoadShape {
  return {
    requests: accessTokens.map((token) => ({
      method: "GET",
      path: "/user",
      headers: { authorization: `Bearer ${token}` },
    })),
  };
}

/**
 * Every request presents a refresh token never presented before: it takes one from `pool` and puts back the
 * token the answer rotated to. With more tokens than connections, no two requests in flight share a session. The
 * pool outlives the scenario: the next refresh scenario (on a server with another signing key, over the same
 * database) goes on with the tokens this one rotated to.
 */
export function refreshToken(pool: string[]): LoadShape {
  return {
    requests: [
      {
        method: "POST",
        path: "/token?grant_type=refresh_token",
        headers: json,
        // An emptied pool (every token lost to failed requests) sends a token that fails, and is counted so.
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ refresh_token: pool.shift() ?? "pool-exhausted" }),
        }),
        onResponse: (status, body) => {
          if (status === 200) pool.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
        },
      },
    ],
  };
}

export function passwordGrant(fixtures: Fixtures): LoadShape {
  const email = cycle(fixtures.emails);
  return {
    requests: [
      {
        method: "POST",
        path: "/token?grant_type=password",
        headers: json,
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ email: email(), password: BENCH_PASSWORD }) }),
      },
    ],
  };
}

export function signup(runId: string): LoadShape {
  let next = 0;
  return {
    requests: [
      {
        method: "POST",
        path: "/signup",
        headers: json,
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ email: `bench-signup-${runId}-${next++}@example.com`, password: BENCH_PASSWORD }),
        }),
      },
    ],
  };
}

export function getSettings(): LoadShape {
  return { requests: [{ method: "GET", path: "/settings" }] };
}

export function floor(): LoadShape {
  return { requests: [{ method: "GET", path: "/floor" }] };
}

/**
 * The rotation floor's requests go as refresh's do: each takes a session from a pool and puts it back when the
 * answer names it, so the load generator does the same work per request on the cores it shares with the server.
 * The session is named in the query: the floor reads no body.
 */
export function rotationFloor(sessionIds: readonly string[]): LoadShape {
  const pool = [...sessionIds];
  return {
    requests: [
      {
        method: "POST",
        path: "/floor",
        headers: json,
        setupRequest: (request) => ({
          ...request,
          path: `/floor?session=${pool.shift() ?? "pool-exhausted"}`,
          body: "{}",
        }),
        onResponse: (status, body) => {
          if (status === 200) pool.push((JSON.parse(body) as { session_id: string }).session_id);
        },
      },
    ],
  };
}
