import { describe, expect, it } from "vitest";
import type { LogoutScope } from "../../model/session.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";

async function threeSessions() {
  const testAuth = createTestAuth();
  const user = aUser({ passwordHash: await testAuth.hasher.hash("s3cret-pass") });
  await testAuth.stores.users.insert(user);
  const signIn = () => testAuth.auth.signInWithPassword({ email: user.email!, password: "s3cret-pass", context });
  return { ...testAuth, grants: [await signIn(), await signIn(), await signIn()] };
}

const alive = async (auth: Awaited<ReturnType<typeof threeSessions>>["auth"], accessToken: string) =>
  auth.authenticate({ accessToken }).then(
    () => true,
    () => false,
  );

describe("sign out", () => {
  it.each<[LogoutScope, boolean[]]>([
    ["global", [false, false, false]],
    ["local", [false, true, true]],
    ["others", [true, false, false]],
  ])("with scope %s ends the right sessions", async (scope, expected) => {
    const { auth, grants } = await threeSessions();
    await auth.signOut({ principal: await auth.authenticate({ accessToken: grants[0]!.accessToken }), scope, context });
    expect(await Promise.all(grants.map((grant) => alive(auth, grant.accessToken)))).toEqual(expected);
    if (!expected[0])
      await failsWith(
        "refresh_token_not_found",
        auth.refreshSession({ refreshToken: grants[0]!.refreshToken, context }),
      );
  });
});
