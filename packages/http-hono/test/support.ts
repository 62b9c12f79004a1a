import { createTestAuth, type TestAuthOptions } from "@latchkey/domain/testing";
import type { Tracer } from "@opentelemetry/api";
import {
  type ConsoleFiles,
  createHttpApp,
  type Logger,
  type OAuthFlowCookie,
  type PublicSettings,
  type Readiness,
  type SigningKeys,
} from "../src/index.ts";
import { requestSpans } from "../src/tracing.ts";

export interface LogLine {
  readonly level: string;
  readonly fields: Record<string, unknown>;
  readonly message: string | undefined;
}

/** Keeps every line, with the bindings of its child loggers merged in. */
function recordingLogger(lines: LogLine[] = [], bindings: Record<string, unknown> = {}): Logger & { lines: LogLine[] } {
  const write = (level: string) => (fields: object, message?: string) => {
    lines.push({ level, fields: { ...bindings, ...fields }, message });
  };
  return {
    lines,
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    child: (more: object) => recordingLogger(lines, { ...bindings, ...more }),
  };
}

const testSettings: PublicSettings = {
  external: { email: true, phone: true, anonymous_users: false, github: false },
  disableSignup: false,
  mailerAutoconfirm: false,
  phoneAutoconfirm: false,
  smsProvider: "",
  passkeysEnabled: false,
  samlEnabled: false,
  samlPrivateKeyNextConfigured: false,
};

/** The HTTP app over the in-memory domain, plus JSON helpers. */
export function createTestApp(
  options: TestAuthOptions & {
    requestIdHeader?: string;
    signingKeys?: SigningKeys;
    tracer?: Tracer;
    /** What GET /ready answers; by default a database that answers. */
    readiness?: Readiness;
    oauthFlowCookie?: OAuthFlowCookie;
    /** The admin console's files, served at /console. */
    console?: ConsoleFiles;
  } = {},
) {
  const testAuth = createTestAuth(options);
  const log = recordingLogger();
  const app = createHttpApp({
    auth: testAuth.auth,
    log,
    settings: testSettings,
    version: "test",
    requestIdHeader: options.requestIdHeader,
    clientAddress: () => "198.51.100.4",
    signingKeys: options.signingKeys ?? { jwks: [], algorithms: ["HS256"] },
    requestSpans: options.tracer ? requestSpans(options.tracer) : undefined,
    readiness: options.readiness ?? (async () => ({ ready: true, dependencies: { database: "ok" } })),
    oauthFlowCookie: options.oauthFlowCookie,
    console: options.console,
    effectiveSettings: () => ({ profile: "production", settings: [] }),
    actionLink: (email) =>
      `http://localhost:8081/verify?token=${email.linkToken}&type=${email.linkType}&redirect_to=${encodeURIComponent(email.redirectTo)}`,
  });
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  return { ...testAuth, app, log, send };
}

export async function json(response: Response): Promise<Record<string, any>> {
  return (await response.json()) as Record<string, any>;
}
