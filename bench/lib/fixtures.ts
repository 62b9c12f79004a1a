import { SignJWT } from "jose";

export const BENCH_PASSWORD = "bench-Password-1";

export interface Fixtures {
  readonly userIds: readonly string[];
  readonly emails: readonly string[];
  /** One signed-in session per user. */
  readonly accessTokens: readonly string[];
  /** Refresh tokens of sessions of their own, one per entry, each not yet used. */
  readonly refreshTokens: readonly string[];
}

/** What the scenarios need, made through the server's own API: confirmed users, their sessions and tokens. */
export async function createFixtures(
  url: string,
  jwtSecret: string,
  counts: { users: number; refreshSessions: number },
): Promise<Fixtures> {
  const serviceRole = await new SignJWT({ role: "service_role" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(new TextEncoder().encode(jwtSecret));

  const emails = Array.from({ length: counts.users }, (_, index) => `bench-user-${index}@example.com`);
  const userIds = await inBatches(emails, async (email) => {
    const user = await call(url, "/admin/users", { email, password: BENCH_PASSWORD, email_confirm: true }, serviceRole);
    return user["id"] as string;
  });
  const signIn = async (email: string) => call(url, "/token?grant_type=password", { email, password: BENCH_PASSWORD });
  const accessTokens = await accessTokensFrom(url, emails);
  const refreshTokens = await inBatches(
    Array.from({ length: counts.refreshSessions }, (_, index) => emails[index % emails.length]!),
    async (email) => (await signIn(email))["refresh_token"] as string,
  );
  return { userIds, emails, accessTokens, refreshTokens };
}

/** A session of each user on the server at `url`: access tokens signed with that server's key. */
export function accessTokensFrom(url: string, emails: readonly string[]): Promise<string[]> {
  return inBatches(emails, async (email) => {
    const session = await call(url, "/token?grant_type=password", { email, password: BENCH_PASSWORD });
    return session["access_token"] as string;
  });
}

async function call(url: string, path: string, body: object, bearer?: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** A few at a time: each costs the server a hash, and its hashing is bounded anyway. */
async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>, size = 8): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    results.push(...(await Promise.all(items.slice(start, start + size).map(work))));
  }
  return results;
}
