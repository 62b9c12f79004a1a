import { OAuthProviderFailure } from "@latchkey/domain";
import { describe, expect, it } from "vitest";
import { createDiscovery } from "../src/oidc/discovery.ts";

const ISSUER = "https://issuer.example";
const HOUR = 60 * 60 * 1000;

function document(version: number) {
  return {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/authorize/v${version}`,
    token_endpoint: `${ISSUER}/token`,
    jwks_uri: `${ISSUER}/jwks`,
  };
}

/** An issuer whose answers a test holds and releases, counting what it was asked; and a clock the test moves. */
function issuerStandIn() {
  let clock = 0;
  let version = 1;
  let down = false;
  const waiting: (() => void)[] = [];
  let held = false;
  const asked: string[] = [];
  const fetchFn = (async (input: string | URL | Request) => {
    asked.push(String(input));
    if (held) await new Promise<void>((resolve) => waiting.push(resolve));
    if (down) throw new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED") });
    return Response.json(document(version));
  }) as typeof fetch;
  return {
    discovery: createDiscovery("google", fetchFn, () => clock),
    asked,
    advance: (ms: number) => {
      clock += ms;
    },
    publish: (next: number) => {
      version = next;
    },
    setDown: (value: boolean) => {
      down = value;
    },
    hold: () => {
      held = true;
    },
    release: () => {
      held = false;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

describe("OIDC discovery", () => {
  it("asks the issuer once for sign-ins that arrive together", async () => {
    const issuer = issuerStandIn();
    issuer.hold();
    const together = Array.from({ length: 5 }, () => issuer.discovery.endpoints(ISSUER));
    issuer.release();
    const answers = await Promise.all(together);
    expect(answers.map((answer) => answer.authorization)).toEqual(Array(5).fill(`${ISSUER}/authorize/v1`));
    expect(issuer.asked).toHaveLength(1);
  });

  it("uses a document for an hour, then serves it while a new one is fetched in the background", async () => {
    const issuer = issuerStandIn();
    await issuer.discovery.endpoints(ISSUER);
    issuer.publish(2);
    issuer.advance(HOUR - 1);
    expect((await issuer.discovery.endpoints(ISSUER)).authorization).toBe(`${ISSUER}/authorize/v1`);
    expect(issuer.asked).toHaveLength(1);

    issuer.advance(1);
    issuer.hold();
    // Due again: answered at once from what it has, while the issuer is asked (and has not answered yet).
    expect((await issuer.discovery.endpoints(ISSUER)).authorization).toBe(`${ISSUER}/authorize/v1`);
    expect((await issuer.discovery.endpoints(ISSUER)).authorization).toBe(`${ISSUER}/authorize/v1`);
    expect(issuer.asked).toHaveLength(2);
    issuer.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect((await issuer.discovery.endpoints(ISSUER)).authorization).toBe(`${ISSUER}/authorize/v2`);
  });

  it("serves an old document while the issuer is down, for a day at most", async () => {
    const issuer = issuerStandIn();
    await issuer.discovery.endpoints(ISSUER);
    issuer.setDown(true);
    issuer.advance(23 * HOUR);
    expect((await issuer.discovery.endpoints(ISSUER)).authorization).toBe(`${ISSUER}/authorize/v1`);
    issuer.advance(HOUR);
    await expect(issuer.discovery.endpoints(ISSUER)).rejects.toThrow(OAuthProviderFailure);
  });

  it("remembers a failure for 30 s: meanwhile sign-ins fail at once, without asking the issuer again", async () => {
    const issuer = issuerStandIn();
    issuer.setDown(true);
    const first = await issuer.discovery.endpoints(ISSUER).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(OAuthProviderFailure);
    expect((first as Error).message).toBe("google: its OpenID configuration could not be read");
    issuer.advance(29_999);
    await expect(issuer.discovery.endpoints(ISSUER)).rejects.toBe(first);
    expect(issuer.asked).toHaveLength(1);

    issuer.setDown(false);
    issuer.advance(1);
    expect((await issuer.discovery.endpoints(ISSUER)).authorization).toBe(`${ISSUER}/authorize/v1`);
    expect(issuer.asked).toHaveLength(2);
  });
});
