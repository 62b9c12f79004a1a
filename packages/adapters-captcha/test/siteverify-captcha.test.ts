import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CaptchaProviderError, createSiteverifyCaptcha } from "../src/index.ts";

interface Received {
  readonly method: string;
  readonly path: string;
  readonly contentType: string | undefined;
  readonly form: Record<string, string>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A siteverify stand-in: records each request and answers as `reply` says (or never, for "hang"). */
async function siteverify(
  reply: (form: Record<string, string>) => { status?: number; body: string; location?: string } | "hang",
) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      received.push({ method: req.method ?? "", path: req.url ?? "", contentType: req.headers["content-type"], form });
      const answer = reply(form);
      if (answer === "hang") return;
      res.writeHead(answer.status ?? 200, {
        "Content-Type": "application/json",
        ...(answer.location ? { Location: answer.location } : {}),
      });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`, received };
}

/** hCaptcha's documented answers: a pass for one token, a refusal with error codes for any other. */
const hcaptcha = (form: Record<string, string>) =>
  form["response"] === "good-token"
    ? { body: JSON.stringify({ success: true, challenge_ts: "2026-11-25T17:00:00Z", hostname: "app.example.com" }) }
    : { body: JSON.stringify({ success: false, "error-codes": ["invalid-input-response", "expired-input-response"] }) };

describe("siteverify captcha", () => {
  it("posts the secret, the token and the client's address as a form, and reads the verdict", async () => {
    const provider = await siteverify(hcaptcha);
    const captcha = createSiteverifyCaptcha({ provider: "hcaptcha", secret: "0xsecret", verifyUrl: provider.url });
    expect(await captcha.verify("good-token", "203.0.113.7")).toEqual({ success: true, errorCodes: [] });
    expect(await captcha.verify("bad-token", null)).toEqual({
      success: false,
      errorCodes: ["invalid-input-response", "expired-input-response"],
    });
    expect(provider.received).toEqual([
      {
        method: "POST",
        path: "/siteverify",
        contentType: "application/x-www-form-urlencoded",
        form: { secret: "0xsecret", response: "good-token", remoteip: "203.0.113.7" },
      },
      {
        method: "POST",
        path: "/siteverify",
        contentType: "application/x-www-form-urlencoded",
        form: { secret: "0xsecret", response: "bad-token" },
      },
    ]);
  });

  it("reads Turnstile's refusal of a replayed token, whatever the HTTP status", async () => {
    const provider = await siteverify(() => ({
      status: 400,
      body: JSON.stringify({ success: false, "error-codes": ["timeout-or-duplicate"], messages: [] }),
    }));
    const captcha = createSiteverifyCaptcha({ provider: "turnstile", secret: "1x00", verifyUrl: provider.url });
    expect(await captcha.verify("used", null)).toEqual({ success: false, errorCodes: ["timeout-or-duplicate"] });
  });

  it("throws, rather than deciding, when the answer is not the provider's or does not come in time", async () => {
    const page = await siteverify(() => ({ status: 502, body: "<html>Bad gateway</html>" }));
    await expect(
      createSiteverifyCaptcha({ provider: "hcaptcha", secret: "s", verifyUrl: page.url }).verify("t", null),
    ).rejects.toBeInstanceOf(CaptchaProviderError);
    const silent = await siteverify(() => "hang");
    await expect(
      createSiteverifyCaptcha({ provider: "hcaptcha", secret: "s", verifyUrl: silent.url, timeoutMs: 200 }).verify(
        "t",
        null,
      ),
    ).rejects.toMatchObject({ name: "TimeoutError" });
  });

  it("never follows a redirect, so the secret goes nowhere else", async () => {
    const elsewhere = await siteverify(() => ({ body: JSON.stringify({ success: true }) }));
    const redirecting = await siteverify(() => ({ status: 307, body: "{}", location: elsewhere.url }));
    const captcha = createSiteverifyCaptcha({ provider: "hcaptcha", secret: "s", verifyUrl: redirecting.url });
    await expect(captcha.verify("t", null)).rejects.toBeInstanceOf(CaptchaProviderError);
    expect(elsewhere.received).toEqual([]);
  });
});
