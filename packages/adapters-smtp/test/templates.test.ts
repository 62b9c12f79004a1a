import type { AuthEmail } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { createEmailRenderer, createSmtpMailer, type MailerOptions, renderEmail } from "../src/index.ts";
import { startSmtpSink } from "../src/testing/index.ts";
import { CODE, emailOf, type HttpTestServer, startHttpServer, TOKEN } from "./support.ts";

const TEMPLATE = '<h1>Hello {{ .Data.name }}</h1><a href="{{ .ConfirmationURL }}">Confirm</a> {{ .Token }}';
const base = { externalUrl: "https://auth.example.com", siteUrl: "https://app.example.com" } as const;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function httpServer(handler: Parameters<typeof startHttpServer>[0]): Promise<HttpTestServer> {
  const server = await startHttpServer(handler);
  cleanups.push(() => server.close());
  return server;
}

/** A renderer whose confirmation template is `path` on `server`, with failures collected. */
function renderer(server: HttpTestServer, path: string, overrides: Partial<MailerOptions> = {}) {
  const errors: { url: string; reason: string }[] = [];
  const render = createEmailRenderer({
    ...base,
    templates: { confirmation: `${server.origin}${path}` },
    onTemplateError: (url, reason) => errors.push({ url, reason }),
    ...overrides,
  });
  return { render, errors };
}

const builtIn = (email: AuthEmail = emailOf("confirmation")) => renderEmail(email, base);

describe("templates by URL", () => {
  it("are fetched and filled in, values HTML-escaped and never re-expanded", async () => {
    const server = await httpServer((_request, response) => response.end(TEMPLATE));
    const { render, errors } = renderer(server, "/confirm.html");
    const email = { ...emailOf("confirmation"), data: { name: "<script>alert('{{ .Token }}')</script>" } };
    const rendered = await render(email);
    expect(rendered.html).toBe(
      "<h1>Hello &lt;script&gt;alert(&#39;{{ .Token }}&#39;)&lt;/script&gt;</h1>" +
        `<a href="${(rendered.link ?? "").replaceAll("&", "&amp;")}">Confirm</a> ${CODE}`,
    );
    expect(rendered.html).not.toContain("<script");
    expect(rendered.text).toBe(builtIn().text);
    expect(errors).toEqual([]);
  });

  it("reach the recipient through SMTP", async () => {
    const http = await httpServer((_request, response) => response.end(TEMPLATE));
    const smtp = await startSmtpSink();
    cleanups.push(() => smtp.close());
    const mailer = createSmtpMailer({
      ...base,
      host: "127.0.0.1",
      port: smtp.port,
      adminEmail: "no-reply@latchkey.example",
      templates: { confirmation: `${http.origin}/t` },
    });
    cleanups.push(() => mailer.close());
    await mailer.send(emailOf("confirmation"), { messageId: "template-1" });
    await smtp.received(1);
    expect(smtp.messages[0]?.html).toContain("<h1>Hello Ada</h1>");
    expect(smtp.messages[0]?.text).toContain(TOKEN);
  });

  it("fall back to the built-in body when the server hangs, within the timeout", async () => {
    const server = await httpServer(() => undefined);
    const { render, errors } = renderer(server, "/slow", { templateTimeoutMs: 200 });
    const started = Date.now();
    const rendered = await render(emailOf("confirmation"));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(rendered.html).toBe(builtIn().html);
    expect(errors).toEqual([{ url: `${server.origin}/slow`, reason: "timed out after 200 ms" }]);
  });

  it("are abandoned past the size cap, the rest of the body never read", async () => {
    const total = 50 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, "a");
    let written = 0;
    let closed: Promise<void> | undefined;
    const server = await httpServer((_request, response) => {
      closed = new Promise((resolve) => response.on("close", () => resolve()));
      // Chunked, without Content-Length: the size is only learnt by reading.
      response.writeHead(200, { "content-type": "text/html" });
      const pump = (): void => {
        while (written < total && !response.destroyed) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once("drain", pump);
        }
        response.end();
      };
      pump();
    });
    const { render, errors } = renderer(server, "/huge", { templateMaxBytes: 512 * 1024 });
    const rendered = await render(emailOf("confirmation"));
    expect(rendered.html).toBe(builtIn().html);
    expect(errors[0]?.reason).toBe("template is larger than 524288 bytes");
    await closed;
    expect(written).toBeLessThan(total / 10);
  });

  it("do not follow redirects", async () => {
    const server = await httpServer((request, response) => {
      if (request.url === "/moved") response.writeHead(302, { location: "/internal" }).end();
      else response.end(TEMPLATE);
    });
    const { render, errors } = renderer(server, "/moved");
    expect((await render(emailOf("confirmation"))).html).toBe(builtIn().html);
    expect(server.requests).toEqual(["/moved"]);
    expect(errors).toHaveLength(1);
  });

  it("fall back on an error status and on a non-http URL", async () => {
    const server = await httpServer((_request, response) => response.writeHead(404).end("not found"));
    const { render, errors } = renderer(server, "/missing");
    expect((await render(emailOf("confirmation"))).html).toBe(builtIn().html);
    const fileTemplate = createEmailRenderer({
      ...base,
      templates: { confirmation: "file:///etc/passwd" },
      onTemplateError: (url, reason) => errors.push({ url, reason }),
    });
    expect((await fileTemplate(emailOf("confirmation"))).html).toBe(builtIn().html);
    expect(errors.map((error) => error.reason)).toEqual(["answered with status 404", "not an http(s) URL"]);
  });
});

describe("template cache", () => {
  it("reuses a template for its TTL and shares concurrent fetches", async () => {
    let clock = 1_000_000;
    const server = await httpServer((_request, response) => setTimeout(() => response.end(TEMPLATE), 30));
    const { render } = renderer(server, "/t", { now: () => clock });
    await Promise.all([render(emailOf("confirmation")), render(emailOf("confirmation"))]);
    expect(server.requests).toHaveLength(1);
    clock += 9 * 60_000;
    await render(emailOf("confirmation"));
    expect(server.requests).toHaveLength(1);
    clock += 2 * 60_000;
    expect((await render(emailOf("confirmation"))).html).toContain("<h1>Hello Ada</h1>");
    expect(server.requests).toHaveLength(2);
  });

  it("retries a failed template after the short failure TTL, reporting each failure once", async () => {
    let clock = 1_000_000;
    let healthy = false;
    const server = await httpServer((_request, response) => {
      if (healthy) response.end(TEMPLATE);
      else response.writeHead(503).end();
    });
    const { render, errors } = renderer(server, "/t", { now: () => clock });
    expect((await render(emailOf("confirmation"))).html).toBe(builtIn().html);
    healthy = true;
    clock += 20_000;
    expect((await render(emailOf("confirmation"))).html).toBe(builtIn().html);
    expect(server.requests).toHaveLength(1);
    expect(errors).toHaveLength(1);
    clock += 11_000;
    expect((await render(emailOf("confirmation"))).html).toContain("<h1>Hello Ada</h1>");
    expect(server.requests).toHaveLength(2);
  });

  it("leaves kinds without a template on the built-in body, without fetching", async () => {
    const server = await httpServer((_request, response) => response.end(TEMPLATE));
    const { render } = renderer(server, "/t");
    expect((await render(emailOf("recovery"))).html).toBe(builtIn(emailOf("recovery")).html);
    expect(server.requests).toEqual([]);
  });
});
