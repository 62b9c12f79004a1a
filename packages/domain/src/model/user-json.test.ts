import { describe, expect, it } from "vitest";
import { aUser } from "../testing/builders.ts";
import type { Factor } from "./factor.ts";
import { presentUser } from "./user-json.ts";

// What clients and hooks receive is the serialised JSON: the keys GoTrue omits must be absent there, in the order
// GoTrue writes the rest.
const serialised = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
const at = new Date("2026-02-03T04:05:06.789Z");

const aFactor = (overrides: Partial<Factor> = {}): Factor => ({
  id: "f1",
  userId: "u1",
  type: "totp",
  friendlyName: null,
  status: "verified",
  sealedSecret: null,
  phone: null,
  lastTotpStep: null,
  webauthn: null,
  lastChallengedAt: null,
  createdAt: at,
  updatedAt: at,
  ...overrides,
});

describe("a user's JSON", () => {
  it("leaves out what is unset: timestamps, pending changes, factors when there are none", () => {
    const json = serialised(presentUser(aUser({ id: "u1", email: "a@example.com", lastSignInAt: null })));
    for (const key of [
      "invited_at",
      "phone_confirmed_at",
      "confirmation_sent_at",
      "recovery_sent_at",
      "new_email",
      "email_change_sent_at",
      "new_phone",
      "phone_change_sent_at",
      "reauthentication_sent_at",
      "last_sign_in_at",
      "factors",
      "banned_until",
      "deleted_at",
    ]) {
      expect(json).not.toHaveProperty(key);
    }
    expect(json["email_confirmed_at"]).toBe("2026-01-01T00:00:00.000Z");
    expect(json["phone"]).toBe("");
    expect((json["identities"] as Record<string, unknown>[])[0]).not.toHaveProperty("last_sign_in_at");
  });

  it("carries what is set, in GoTrue's order", () => {
    const json = serialised(
      presentUser(
        aUser({ id: "u1", email: "a@example.com", newEmail: "b@example.com", lastSignInAt: at, factors: [aFactor()] }),
      ),
    );
    expect(Object.keys(json)).toEqual([
      "id",
      "aud",
      "role",
      "email",
      "email_confirmed_at",
      "phone",
      "confirmed_at",
      "new_email",
      "last_sign_in_at",
      "app_metadata",
      "user_metadata",
      "identities",
      "factors",
      "created_at",
      "updated_at",
      "is_anonymous",
    ]);
    expect(json["new_email"]).toBe("b@example.com");
    expect(json["last_sign_in_at"]).toBe("2026-02-03T04:05:06.789Z");
  });

  it("names a factor only when it has a name", () => {
    const [unnamed, named] = serialised(
      presentUser(aUser({ factors: [aFactor(), aFactor({ id: "f2", friendlyName: "phone" })] })),
    )["factors"] as Record<string, unknown>[];
    expect(unnamed).not.toHaveProperty("friendly_name");
    expect(unnamed).not.toHaveProperty("web_authn_aaguid");
    expect(named?.["friendly_name"]).toBe("phone");
  });
});
