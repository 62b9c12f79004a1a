import { hash as argon2Hash, parseOptions } from "@node-rs/argon2";
import { hash as bcryptHash } from "@node-rs/bcrypt";
import { describe, expect, it } from "vitest";
import { createArgon2PasswordHasher, recommendedArgon2 } from "../src/argon2-password-hasher.ts";

const hasher = createArgon2PasswordHasher();

describe("argon2id password hasher", () => {
  it("hashes with argon2id at the recommended parameters and a salt of its own each time", async () => {
    const first = await hasher.hash("correct horse");
    const second = await hasher.hash("correct horse");
    expect(first.startsWith("$argon2id$v=19$m=19456,t=2,p=1$")).toBe(true);
    expect(first).not.toBe(second);
    expect(parseOptions(first)).toMatchObject(recommendedArgon2);
  });

  it("verifies exactly the password it hashed, without truncating long ones", async () => {
    const long = `${"a".repeat(100)}1`;
    const stored = await hasher.hash(long);
    expect(await hasher.verify(stored, long)).toEqual({ ok: true, needsRehash: false });
    expect(await hasher.verify(stored, `${"a".repeat(100)}2`)).toEqual({ ok: false, needsRehash: false });
    expect(await hasher.verify(stored, "a".repeat(100))).toEqual({ ok: false, needsRehash: false });
  });

  it("verifies imported bcrypt and argon2i hashes and asks for them to be upgraded", async () => {
    const bcrypt = await bcryptHash("imported pw", 4);
    expect(await hasher.verify(bcrypt, "imported pw")).toEqual({ ok: true, needsRehash: true });
    expect(await hasher.verify(bcrypt, "wrong pw")).toEqual({ ok: false, needsRehash: false });
    const argon2i = await argon2Hash("imported pw", { algorithm: 1 });
    expect(await hasher.verify(argon2i, "imported pw")).toEqual({ ok: true, needsRehash: true });
    const weaker = await argon2Hash("imported pw", { algorithm: 2, memoryCost: 4096, timeCost: 1 });
    expect(await hasher.verify(weaker, "imported pw")).toEqual({ ok: true, needsRehash: true });
  });

  it("verifies nothing against a malformed or foreign hash", async () => {
    for (const stored of ["", "plaintext", "$argon2id$garbage", "$2a$10$short", "$1$md5crypt$"]) {
      expect(await hasher.verify(stored, "plaintext")).toEqual({ ok: false, needsRehash: false });
    }
  });

  it("spends a real verification when there is no user to verify against", async () => {
    await expect(hasher.verifyNothing("anything")).resolves.toBeUndefined();
  });
});
