import type { Identity } from "../model/identity.ts";
import type { Session } from "../model/session.ts";
import { newUser, type User } from "../model/user.ts";
import { nodeRandom } from "./node-random.ts";

const at = new Date("2026-01-01T00:00:00.000Z");

/** A confirmed email user with an email identity; unique address unless given. */
export function aUser(overrides: Partial<User> = {}): User {
  const id = overrides.id ?? nodeRandom.uuid();
  const email = overrides.email === undefined ? `user-${id.slice(0, 8)}@example.com` : overrides.email;
  const identities: Identity[] =
    email === null
      ? []
      : [
          {
            id: nodeRandom.uuid(),
            userId: id,
            provider: "email",
            providerId: id,
            identityData: { sub: id, email, email_verified: true, phone_verified: false },
            lastSignInAt: null,
            createdAt: at,
            updatedAt: at,
          },
        ];
  return {
    ...newUser({ id, aud: "authenticated", role: "authenticated", now: at }),
    email,
    emailConfirmedAt: email === null ? null : at,
    appMetadata: email === null ? {} : { provider: "email", providers: ["email"] },
    identities,
    ...overrides,
  };
}

export function aSession(userId: string, overrides: Partial<Session> = {}): Session {
  return {
    id: nodeRandom.uuid(),
    userId,
    aal: "aal1",
    amr: [{ method: "password", at }],
    refreshTokenId: null,
    previousRefreshTokenId: null,
    rotatedAt: null,
    userAgent: "vitest",
    ip: "127.0.0.1",
    notAfter: null,
    factorId: null,
    oauthClientId: null,
    scopes: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}
