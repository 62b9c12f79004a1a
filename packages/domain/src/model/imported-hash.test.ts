import { describe, expect, it } from "vitest";
import { isAuthError } from "../errors.ts";
import { assertImportableHash } from "./imported-hash.ts";

const BCRYPT_BODY = "N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy";
const ARGON2_TAIL = "c29tZXNhbHRzb21lc2FsdA$RdescudvJCsgt3ub+b+dWRWJTmaaJObGvqPsE4jVVA8";
const argon2 = (variant: string, params: string, version = "19") => `$${variant}$v=${version}$${params}$${ARGON2_TAIL}`;

function refusal(hash: string): unknown {
  try {
    assertImportableHash(hash);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("importable password hashes", () => {
  it.each([
    `$2a$10$${BCRYPT_BODY}`,
    `$2b$04$${BCRYPT_BODY}`,
    `$2y$14$${BCRYPT_BODY}`,
    argon2("argon2id", "m=65536,t=3,p=4"),
    argon2("argon2i", "m=19456,t=2,p=1"),
    argon2("argon2id", "m=102400,t=2,p=8"),
    argon2("argon2id", "m=65536,t=4,p=1"),
    argon2("argon2id", "m=131072,t=2,p=16"),
    argon2("argon2id", "m=8,t=1,p=1"),
  ])("accepts %j", (hash) => {
    expect(() => assertImportableHash(hash)).not.toThrow();
  });

  it.each([
    ["empty", ""],
    ["plain text", "hunter2"],
    ["an unknown bcrypt variant", `$2x$10$${BCRYPT_BODY}`],
    ["a bcrypt cost below 4", `$2a$03$${BCRYPT_BODY}`],
    ["a bcrypt cost above 14, which would make every wrong guess cost minutes", `$2a$15$${BCRYPT_BODY}`],
    ["the highest bcrypt cost", `$2a$31$${BCRYPT_BODY}`],
    ["a bcrypt hash one character short", `$2a$10$${BCRYPT_BODY.slice(1)}`],
    ["a bcrypt hash one character long", `$2a$10$${BCRYPT_BODY}A`],
    ["a bcrypt hash with a character outside its alphabet", `$2a$10$${BCRYPT_BODY.slice(1)}+`],
    ["a bcrypt hash with a trailing newline", `$2a$10$${BCRYPT_BODY}\n`],
    ["argon2d", argon2("argon2d", "m=65536,t=3,p=4")],
    ["argon2 version 16", argon2("argon2id", "m=65536,t=3,p=4", "16")],
    [
      "argon2 at GoTrue's bounds, 1 GiB and 20 passes, where one guess takes seconds",
      argon2("argon2id", "m=1048576,t=20,p=16"),
    ],
    ["argon2 memory above 128 MiB", argon2("argon2id", "m=131073,t=1,p=4")],
    ["argon2 memory times passes above 256 MiB", argon2("argon2id", "m=65536,t=5,p=1")],
    ["argon2 with no iterations", argon2("argon2id", "m=65536,t=0,p=4")],
    ["argon2 with many cheap iterations", argon2("argon2id", "m=8192,t=33,p=1")],
    ["argon2 with no parallelism", argon2("argon2id", "m=65536,t=3,p=0")],
    ["argon2 with parallelism above 16", argon2("argon2id", "m=65536,t=3,p=17")],
    ["argon2 with a key id", `$argon2id$v=19$m=65536,t=3,p=4,keyid=abc$${ARGON2_TAIL}`],
    ["argon2 without its hash", "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ"],
    ["argon2 without a version", `$argon2id$m=65536,t=3,p=4$${ARGON2_TAIL}`],
    ["scrypt", "$fbscrypt$v=1,n=14,r=8,p=1$c2FsdA$aGFzaA"],
    ["a hash of our test hasher", "fast-sha256$5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"],
  ])("refuses %s with validation_failed", (_name, hash) => {
    expect(isAuthError(refusal(hash), "validation_failed")).toBe(true);
  });
});
