import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import type { AuthEmail } from "@latchkey/domain";
import type { AddressObject } from "mailparser";

export const TOKEN = "pkce_4f1c2e9a7b";
export const CODE = "493817";
export const REDIRECT_TO = "https://app.example.com/welcome?step=2&from=mail#done";
export const TO = "ada@example.com";

const link = { to: TO, linkToken: TOKEN, otp: CODE, redirectTo: REDIRECT_TO } as const;

/** One email of every kind, with the link type and URL path setting each should use. */
export const EMAILS: readonly AuthEmail[] = [
  { ...link, kind: "confirmation", linkType: "signup", data: { name: "Ada" } },
  { ...link, kind: "invite", linkType: "invite", data: {} },
  { ...link, kind: "magic_link", linkType: "magiclink", data: {} },
  { ...link, kind: "recovery", linkType: "recovery", data: {} },
  { ...link, kind: "email_change", linkType: "email_change", email: TO, newEmail: "ada@new.example.com", data: {} },
  { kind: "reauthentication", to: TO, otp: CODE },
  { kind: "password_changed", to: TO },
  { kind: "email_changed", to: "ada@old.example.com", email: TO, oldEmail: "ada@old.example.com" },
  { kind: "phone_changed", to: TO, phone: "+15550100", oldPhone: "+15550199" },
  { kind: "identity_linked", to: TO, provider: "github" },
  { kind: "identity_unlinked", to: TO, provider: "github" },
  { kind: "mfa_factor_enrolled", to: TO, factorType: "totp" },
  { kind: "mfa_factor_unenrolled", to: TO, factorType: "phone" },
];

/** Finds the sample email of a kind, typed as that kind. */
export function emailOf<K extends AuthEmail["kind"]>(kind: K): Extract<AuthEmail, { kind: K }> {
  const email = EMAILS.find((candidate): candidate is Extract<AuthEmail, { kind: K }> => candidate.kind === kind);
  if (!email) throw new Error(`no sample ${kind}`);
  return email;
}

/** A TCP server that accepts connections and never says a word (with `greeting`, says only that). */
export function startSilentServer(greeting?: string): Promise<TcpServer> {
  return listenOnLoopback((socket) => {
    if (greeting) socket.write(`${greeting}\r\n`);
  });
}

/**
 * A scripted SMTP server that greets, and answers every command, `delayMs` after it is due: each reply comes in time,
 * the whole exchange slowly. It accepts every message.
 */
export function startSlowSmtpServer(delayMs: number): Promise<TcpServer> {
  return listenOnLoopback((socket) => {
    const reply = (line: string) => setTimeout(() => socket.writable && socket.write(`${line}\r\n`), delayMs);
    let buffered = "";
    let inData = false;
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      for (let end = buffered.indexOf("\r\n"); end >= 0; end = buffered.indexOf("\r\n")) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (inData) {
          if (line === ".") {
            inData = false;
            reply("250 queued");
          }
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "DATA") inData = true;
        reply(verb === "DATA" ? "354 go ahead" : verb === "QUIT" ? "221 bye" : "250 slow.example");
      }
    });
    reply("220 slow.example ESMTP");
  });
}

export interface TcpServer {
  readonly port: number;
  /** Drops every connection, then stops listening. */
  close(): Promise<void>;
}

/** A TCP server on a free loopback port running `onConnection` for each client; closing it drops them all. */
async function listenOnLoopback(onConnection: (socket: Socket) => void): Promise<TcpServer> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface HttpTestServer {
  readonly origin: string;
  /** Paths requested, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** A local HTTP server for templates; the handler sees every request. */
export async function startHttpServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<HttpTestServer> {
  const requests: string[] = [];
  const server = createHttpServer((request, response) => {
    requests.push(request.url ?? "");
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The first address of a parsed header. */
export function firstAddress(field: AddressObject | AddressObject[] | undefined): { name: string; address: string } {
  const value = (Array.isArray(field) ? field[0] : field)?.value[0];
  return { name: value?.name ?? "", address: value?.address ?? "" };
}

/** The first http(s) link in an HTML body's href attributes. */
export function hrefOf(html: string): string {
  const match = /href="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error("no link in the HTML part");
  return match[1].replaceAll("&amp;", "&");
}
