import { createServer } from "node:net";
import type { FlowState, OAuthFlowStore, OneTimeToken, RefreshToken } from "@latchkey/domain";
import { nodeRandom, skipAllIfMissing } from "@latchkey/domain/testing";
import type { SQL } from "drizzle-orm";
import { afterAll, beforeAll } from "vitest";
import { createPostgres, type Database, type Postgres } from "../src/index.ts";
import {
  createTestDatabase,
  missingPostgresServer,
  openEmbeddedTestDatabase,
  randomNamespace,
} from "../src/testing/index.ts";

/** A migrated database to run a suite on, and how to get rid of it. */
interface OpenedBackend {
  readonly postgres: Postgres;
  close(): Promise<void>;
}

export interface Backend {
  readonly name: "pglite" | "postgres";
  /** What this machine lacks to test on it; undefined when it can. */
  readonly missing: string | undefined;
  open(options?: { maxPoolSize?: number }): Promise<OpenedBackend>;
}

/** A fresh in-memory PGlite of the suite's own. */
const pglite: Backend = {
  name: "pglite",
  missing: undefined,
  async open() {
    const client = await openEmbeddedTestDatabase();
    const postgres = await createPostgres({ sharedEmbedded: client, namespace: randomNamespace(), maxPoolSize: 0 });
    await postgres.migrate();
    return {
      postgres,
      close: async () => {
        await postgres.close();
        await client.close();
      },
    };
  },
};

const server: Backend = {
  name: "postgres",
  missing: missingPostgresServer(),
  async open(options) {
    const database = await createTestDatabase(options);
    return { postgres: database.postgres, close: database.close };
  },
};

/** PGlite, and the PostgreSQL server, whose suites are skipped, saying why, where there is none. */
export const backends: readonly Backend[] = [pglite, server];

/**
 * Opens the backend for the enclosing suite, or skips its tests where the machine lacks it; the returned function
 * gives the opened database once the suite runs.
 */
export function openedFor(backend: Backend, options: { maxPoolSize?: number } = {}): () => Postgres {
  skipAllIfMissing(backend.missing);
  let opened: OpenedBackend | undefined;
  beforeAll(async () => {
    if (backend.missing === undefined) opened = await backend.open(options);
  });
  afterAll(() => opened?.close());
  return () => {
    if (!opened) throw new Error("the backend is not open yet");
    return opened.postgres;
  };
}

/** Rows of a raw query, whichever the driver: both answer `{ rows }`. */
export async function queryRows<Row>(db: Database, query: SQL): Promise<Row[]> {
  const result: unknown = await db.execute(query);
  const rows = typeof result === "object" && result !== null ? (result as { rows?: unknown }).rows : undefined;
  if (!Array.isArray(rows)) throw new Error("the driver answered without rows");
  return rows as Row[];
}

export function aRefreshToken(sessionId: string, overrides: Partial<RefreshToken> = {}): RefreshToken {
  return {
    id: nodeRandom.uuid(),
    sessionId,
    parentId: null,
    tokenHash: nodeRandom.token(32),
    createdAt: new Date("2026-03-04T10:00:00.000Z"),
    ...overrides,
  };
}

export function aOneTimeToken(userId: string, overrides: Partial<OneTimeToken> = {}): OneTimeToken {
  return {
    id: nodeRandom.uuid(),
    userId,
    kind: "confirmation",
    relatesTo: "someone@example.com",
    linkTokenHash: nodeRandom.token(32),
    otpHash: nodeRandom.token(32),
    failedAttempts: 0,
    codeChallenge: null,
    codeChallengeMethod: null,
    passwordHash: null,
    userMetadata: null,
    identityId: null,
    createdAt: new Date("2026-03-04T10:00:00.000Z"),
    ...overrides,
  };
}

export function aFlowState(userId: string, overrides: Partial<FlowState> = {}): FlowState {
  return {
    id: nodeRandom.uuid(),
    authCodeHash: nodeRandom.token(32),
    userId,
    codeChallenge: nodeRandom.token(32),
    codeChallengeMethod: "s256",
    authenticationMethod: "magiclink",
    provider: null,
    pendingLink: null,
    createdAt: new Date("2026-03-04T10:00:00.000Z"),
    ...overrides,
  };
}

/** The domain's OAuthFlow, which its public surface names only through the store. */
type OAuthFlow = Parameters<OAuthFlowStore["insert"]>[0];

export function anOAuthFlow(overrides: Partial<OAuthFlow> = {}): OAuthFlow {
  return {
    id: nodeRandom.uuid(),
    provider: "github",
    redirectTo: "https://app.example.com/welcome",
    codeChallenge: nodeRandom.token(32),
    codeChallengeMethod: "s256",
    inviteUserId: null,
    linkingTargetId: null,
    sealedSecret: `sealed-${nodeRandom.token(16)}`,
    browserBindingHash: nodeRandom.token(32),
    createdAt: new Date("2026-03-04T10:00:00.000Z"),
    ...overrides,
  };
}

/** A promise and the function that resolves it: to hold a transaction open at a chosen point. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A loopback port nobody listens on (a connection to it is refused at once). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
