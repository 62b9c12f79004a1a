import type { Principal, SessionGrant } from "../deps.ts";
import { aUser } from "./builders.ts";
import { createTestAuth, type TestAuth, type TestAuthOptions } from "./create-test-auth.ts";
import { context } from "./fails-with.ts";

/** The password of the users signedIn makes. */
export const TEST_PASSWORD = "s3cret-pass";

/** The domain on in-memory adapters, with a confirmed user who has a password and signed in with it once. */
export async function signedIn(options: TestAuthOptions = {}) {
  const testAuth = createTestAuth(options);
  const user = aUser({ passwordHash: await testAuth.hasher.hash(TEST_PASSWORD) });
  await testAuth.stores.users.insert(user);
  const grant = await testAuth.auth.signInWithPassword({ email: user.email!, password: TEST_PASSWORD, context });
  return { ...testAuth, user, grant };
}

/** Who the access token speaks for, as the HTTP layer finds out before each call. */
export function principalOf(testAuth: TestAuth, grant: SessionGrant): Promise<Principal> {
  return testAuth.auth.authenticate({ accessToken: grant.accessToken });
}
