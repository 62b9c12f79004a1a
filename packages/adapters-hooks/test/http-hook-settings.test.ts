import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkHttpHookSettings } from "../src/index.ts";

const KEY = randomBytes(32).toString("base64");
const SECRET = `v1,whsec_${KEY}`;

describe("checkHttpHookSettings", () => {
  it.each([
    "https://hooks.example.com/custom-access-token",
    "https://10.0.0.5:8443/hook",
    "http://localhost:54321/functions/v1/hook",
    "http://127.0.0.1/hook",
    "http://[::1]:9000/hook",
    "http://host.docker.internal:54321/hook",
  ])("takes %s", (uri) => {
    expect(checkHttpHookSettings({ uri, secrets: [SECRET] })).toBeNull();
  });

  it.each([
    ["http://example.com/hook", /only localhost, 127\.0\.0\.1, ::1 and host\.docker\.internal are supported with http/],
    ["http://10.0.0.5/hook", /supported with http/],
    ["ftp://example.com/hook", /must be https:\/\//],
    ["not a uri", /is not a valid URL/],
  ])("refuses the URI %s", (uri, problem) => {
    expect(checkHttpHookSettings({ uri, secrets: [SECRET] })).toEqual({
      setting: "uri",
      problem: expect.stringMatching(problem),
    });
  });

  it("takes several secrets, and none (GoTrue then sends an empty signature)", () => {
    const other = `v1,whsec_${randomBytes(24).toString("base64")}`;
    expect(checkHttpHookSettings({ uri: "https://example.com", secrets: [SECRET, other] })).toBeNull();
    expect(checkHttpHookSettings({ uri: "https://example.com", secrets: [] })).toBeNull();
  });

  it.each([
    ["no prefix", KEY, /secret #1 is not of the form v1,whsec_/],
    ["a short key", "v1,whsec_c2hvcnQ=", /secret #1 is not of the form/],
    ["a key that is no base64", `v1,whsec_${KEY}!!`, /secret #1 is not of the form/],
    ["an unpadded key", `v1,whsec_${KEY.replace(/=+$/, "")}`, /secret #1 is not of the form/],
    [
      "an asymmetric key pair",
      `v1a,whpk_${randomBytes(32).toString("base64")}:whsk_${randomBytes(64).toString("base64")}`,
      /asymmetric .* only symmetric v1,whsec_ secrets are supported/,
    ],
  ])("refuses a secret with %s, naming it by its place only", (_, secret, problem) => {
    const found = checkHttpHookSettings({ uri: "https://example.com", secrets: [secret] });
    expect(found).toEqual({ setting: "secrets", problem: expect.stringMatching(problem) });
    expect(found?.problem).not.toContain(KEY);
  });

  it("names the place of the bad secret among several", () => {
    const found = checkHttpHookSettings({ uri: "https://example.com", secrets: [SECRET, "v1,whsec_bad"] });
    expect(found?.problem).toMatch(/^secret #2 /);
  });
});
