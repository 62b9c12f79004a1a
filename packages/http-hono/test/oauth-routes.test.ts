import { FakeOAuthProvider } from "@latchkey/domain/testing";
import { describe, expect, it } from "vitest";
import { createTestApp, json } from "./support.ts";

// The browser binding of a provider sign-in: a cookie set at /authorize, which only /callback sees.

function appWithGitHub() {
  const github = new FakeOAuthProvider();
  const test = createTestApp({
    ports: { oauthProviders: new Map([["github", github]]) },
    oauthFlowCookie: { secure: true, callbackPath: () => "/auth/v1/callback" },
  });
  /** Off to the provider: the state it will hand back, and the cookie the browser keeps. */
  const authorize = async () => {
    const response = await test.app.request("/authorize?provider=github&redirect_to=http://localhost:3000/");
    expect(response.status).toBe(302);
    const cookie = response.headers.get("set-cookie") ?? "";
    return { state: github.lastState, cookie, pair: cookie.split(";")[0]! };
  };
  const callback = (query: string, cookie?: string) =>
    test.app.request(`/callback?${query}`, { headers: cookie === undefined ? {} : { cookie } });
  return { ...test, github, authorize, callback };
}

describe("GET /authorize", () => {
  it("gives the browser an HttpOnly, SameSite=Lax cookie for the callback path alone, as long as the flow lives", async () => {
    const { authorize } = appWithGitHub();
    const { state, cookie } = await authorize();
    expect(cookie).toMatch(
      new RegExp(
        `^latchkey-oauth-${state}=[A-Za-z0-9_-]{43}; Max-Age=300; Path=/auth/v1/callback; HttpOnly; Secure; SameSite=Lax$`,
      ),
    );
  });
});

describe("GET /callback", () => {
  it("signs in the browser that brings the flow's cookie back", async () => {
    const { authorize, callback } = appWithGitHub();
    const { state, pair } = await authorize();
    const response = await callback(`state=${state}&code=c`, pair);
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get("location")!).hash).toContain("access_token=");
  });

  it("refuses a browser without the cookie, or with another flow's, and uses the flow up", async () => {
    const { authorize, callback } = appWithGitHub();
    const first = await authorize();
    const second = await authorize();
    const refusedWith = async (response: Response) => {
      expect(response.status).toBe(303);
      const location = new URL(response.headers.get("location")!);
      expect(location.hash).toBe("");
      return location.searchParams.get("error_description");
    };
    expect(await refusedWith(await callback(`state=${first.state}&code=c`))).toBe(
      "OAuth state was not started in this browser",
    );
    // The second flow's cookie, renamed to the second flow's state's name, is no proof for the second.
    const forged = `latchkey-oauth-${second.state}=${first.pair.split("=")[1]}`;
    expect(await refusedWith(await callback(`state=${second.state}&code=c`, forged))).toBe(
      "OAuth state was not started in this browser",
    );
    expect(await refusedWith(await callback(`state=${second.state}&code=c`, second.pair))).toBe(
      "OAuth state not found or expired",
    );
  });
});

describe("POST /callback", () => {
  it("sends a form-posted callback (Apple's form_post) on as a GET of the same path, which carries the cookie", async () => {
    const { app } = appWithGitHub();
    const response = await app.request("/callback", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "state=s%20t&code=abc&user=%7B%22name%22%3A1%7D",
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("?state=s+t&code=abc&user=%7B%22name%22%3A1%7D");
    expect(response.headers.get("set-cookie")).toBeNull();
  });
});

describe("a provider that cannot be reached", () => {
  function appWithDownProvider() {
    const github = new FakeOAuthProvider({ failAt: "authorize" });
    return createTestApp({
      ports: { oauthProviders: new Map([["github", github]]) },
      policy: {
        redirect: { siteUrl: "http://localhost:3000", allowList: ["http://localhost:3000/**"] },
        signup: { emailAutoconfirm: true },
        manualLinkingEnabled: true,
      },
    });
  }

  it("sends the browser of GET /authorize back to the app with the error, and logs one line naming it", async () => {
    const { app, log } = appWithDownProvider();
    const response = await app.request(
      `/authorize?provider=github&redirect_to=${encodeURIComponent("http://localhost:3000/welcome")}`,
    );
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(location.origin + location.pathname).toBe("http://localhost:3000/welcome");
    const failure = {
      error: "temporarily_unavailable",
      error_code: "service_unavailable",
      error_description: "Unable to start the sign-in with the external provider",
    };
    expect(Object.fromEntries(location.searchParams)).toEqual(failure);
    expect(Object.fromEntries(new URLSearchParams(location.hash.slice(1)))).toEqual(failure);
    expect(response.headers.get("set-cookie")).toBeNull();
    const lines = log.lines.filter((line) => line.level === "warn" || line.level === "error");
    expect(lines).toEqual([
      {
        level: "warn",
        message: "OAuth provider could not be reached",
        fields: expect.objectContaining({
          code: "service_unavailable",
          provider: "github",
          reason: "github: fake failure at authorize: the provider's own words",
        }),
      },
    ]);
  });

  it("answers an app's GET /user/identities/authorize with 503 and Retry-After, in the error shape", async () => {
    const { app, send } = appWithDownProvider();
    const session = await json(
      await send("POST", "/signup", { email: "down@example.com", password: "correct horse down" }),
    );
    expect(session["access_token"]).toBeTruthy();
    const response = await app.request(
      "/user/identities/authorize?provider=github&skip_http_redirect=true&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=s256",
      { headers: { authorization: `Bearer ${session["access_token"]}` } },
    );
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("30");
    expect(await json(response)).toMatchObject({ code: 503, error_code: "service_unavailable" });
  });
});
