import { parseKeyRing } from "@latchkey/adapters-crypto";
import { describe, expect, it } from "vitest";
import { keyRingCommand } from "../../src/cli/keys-command.ts";

const run = (...args: string[]) => keyRingCommand(args, {});
const kids = (ring: string) => parseKeyRing(ring).keys.map((key) => [key.kid, key.alg, key.signs]);

describe("latchkey keys", () => {
  it("generates a ring for JWT_KEYS, RS256 by default, on one line", () => {
    const { out, exitCode } = run("generate");
    expect(exitCode).toBe(0);
    expect(out).not.toContain("\n");
    expect(parseKeyRing(out!).signer.alg).toBe("RS256");
    expect(parseKeyRing(run("generate", "--alg", "EdDSA").out!).signer.alg).toBe("EdDSA");
  });

  it("walks a rotation: add a key that verifies, make it sign, remove the old one", () => {
    const ring = run("generate").out!;
    const [[oldKid]] = kids(ring) as [[string]];
    const added = run("add", "--to", ring, "--alg", "ES256").out!;
    const [, [newKid]] = kids(added) as [unknown, [string]];
    expect(kids(added)).toEqual([
      [oldKid, "RS256", true],
      [newKid, "ES256", false],
    ]);
    const switched = keyRingCommand(["use", newKid], { AUTH_JWT_KEYS: added }).out!;
    expect(kids(switched)).toEqual([
      [oldKid, "RS256", false],
      [newKid, "ES256", true],
    ]);
    expect(kids(run("remove", oldKid, "--in", switched).out!)).toEqual([[newKid, "ES256", true]]);
  });

  it("says what is wrong in one line, pointing a wrong call at the help, and echoes no key", () => {
    expect(run("generate", "--alg", "HS256")).toMatchObject({
      exitCode: 2,
      error: expect.stringMatching(/^latchkey: --alg must be one of .*; see latchkey keys --help$/),
    });
    expect(run("add")).toMatchObject({ exitCode: 2, error: expect.stringMatching(/^latchkey: no ring/) });
    expect(run("use", "--in", "[]")).toMatchObject({
      exitCode: 2,
      error: expect.stringMatching(/^latchkey: unexpected arguments/),
    });
    expect(run("rotate")).toMatchObject({
      exitCode: 2,
      error: expect.stringMatching(/^latchkey: unknown keys command "rotate"/),
    });
    const ring = run("generate").out!;
    const refused = run("remove", kids(ring)[0]![0] as string, "--in", ring);
    expect(refused).toEqual({ error: expect.stringMatching(/signs: make another key the signer first$/), exitCode: 1 });
    const broken = run("add", "--to", '[{"kty":"EC"}]');
    expect(broken).toEqual({ error: expect.stringMatching(/^the ring is not valid: key 1/), exitCode: 1 });
  });
});
