import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { AuthError } from "@latchkey/domain";
import { afterEach, describe, expect, it } from "vitest";
import { createSamlMetadataReader } from "../src/index.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const METADATA = `<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.com/ünïcode"><md:IDPSSODescriptor/></md:EntityDescriptor>`;

/** A stand-in IdP on a port of its own: records each request's headers, answers as `reply` does. */
async function idpServer(reply: (res: ServerResponse, path: string) => void) {
  const received: IncomingHttpHeaders[] = [];
  const sockets: Socket[] = [];
  const server = createServer((req, res) => {
    received.push(req.headers);
    reply(res, req.url ?? "");
  });
  server.on("connection", (socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/app/metadata`, origin: `http://127.0.0.1:${port}`, received, sockets };
}

/** A port nothing listens on: one a server had, closed. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/metadata`;
}

/** "closed" once the server's side of the connection closes, "open" if it is still open after `ms`. */
function closedWithin(socket: Socket, ms: number): Promise<"closed" | "open"> {
  if (socket.destroyed) return Promise.resolve("closed");
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("open"), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve("closed");
    });
  });
}

async function refusal(work: Promise<unknown>): Promise<AuthError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AuthError);
  expect((error as AuthError).code).toBe("saml_metadata_fetch_failed");
  return error as AuthError;
}

const reader = (timeoutMs = 2_000, maxBytes = 64 * 1024) => createSamlMetadataReader({ timeoutMs, maxBytes });

describe("fetching SAML metadata", () => {
  it("GETs the document as UTF-8 XML and answers its text", async () => {
    const idp = await idpServer((res) => {
      res.writeHead(200, { "Content-Type": "application/samlmetadata+xml" });
      res.end(Buffer.from(METADATA, "utf8"));
    });
    await expect(reader().fetch(idp.url)).resolves.toBe(METADATA);
    expect(idp.received).toHaveLength(1);
    expect(idp.received[0]).toMatchObject({ accept: "application/xml;charset=UTF-8", "accept-charset": "UTF-8" });
  });

  it("follows a redirect", async () => {
    const idp = await idpServer((res, path) => {
      if (path === "/old") res.writeHead(302, { Location: "/app/metadata" }).end();
      else res.writeHead(200).end(METADATA);
    });
    await expect(reader().fetch(`${idp.origin}/old`)).resolves.toBe(METADATA);
  });

  it("reports a status other than 200 in GoTrue's words", async () => {
    const idp = await idpServer((res) => res.writeHead(404, { "Content-Type": "text/html" }).end("<h1>Not Found</h1>"));
    expect((await refusal(reader().fetch(idp.url))).message).toBe(
      `HTTP 404 error fetching SAML Metadata from URL '${idp.url}'`,
    );
  });

  it("gives up at the deadline on a server that never answers", async () => {
    const idp = await idpServer(() => undefined);
    const started = performance.now();
    expect((await refusal(reader(200).fetch(idp.url))).message).toBe(
      `Fetching SAML Metadata from URL '${idp.url}' took longer than 200 ms`,
    );
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("counts reading the body against the deadline", async () => {
    const idp = await idpServer((res) => {
      res.writeHead(200);
      res.write(METADATA.slice(0, 20)); // and the rest never comes
    });
    expect((await refusal(reader(200).fetch(idp.url))).message).toBe(
      `Fetching SAML Metadata from URL '${idp.url}' took longer than 200 ms`,
    );
  });

  it("stops reading a body over the cap, and closes the connection", async () => {
    const idp = await idpServer((res) => {
      // No Content-Length: the cap is found while reading, from a server that would go on for ever.
      res.writeHead(200, { "Content-Type": "application/xml" });
      const chunk = Buffer.alloc(16 * 1024, "a");
      const timer = setInterval(() => res.write(chunk), 5);
      res.on("close", () => clearInterval(timer));
    });
    expect((await refusal(reader(5_000, 100_000).fetch(idp.url))).message).toBe(
      `SAML Metadata from URL '${idp.url}' is larger than 100000 bytes`,
    );
    expect(idp.sockets).toHaveLength(1);
    await expect(closedWithin(idp.sockets[0]!, 2_000)).resolves.toBe("closed");
  });

  it("refuses a declared Content-Length over the cap without reading the body", async () => {
    const idp = await idpServer((res) => res.writeHead(200, { "Content-Length": 2_000 }).end("a".repeat(2_000)));
    expect((await refusal(reader(2_000, 1_000).fetch(idp.url))).message).toBe(
      `SAML Metadata from URL '${idp.url}' is larger than 1000 bytes`,
    );
  });

  it("says why a connection failed", async () => {
    const url = await closedPort();
    expect((await refusal(reader().fetch(url))).message).toMatch(
      new RegExp(`^Could not fetch SAML Metadata from URL '${url.replace(/\./g, "\\.")}': connect ECONNREFUSED`),
    );
  });
});
