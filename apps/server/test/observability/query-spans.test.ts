import { createPostgres, type Postgres } from "@latchkey/adapters-postgres";
import {
  dropTables,
  missingPostgresServer,
  randomNamespace,
  testDatabaseUrl,
} from "@latchkey/adapters-postgres/testing";
import { describeIfAvailable } from "@latchkey/domain/testing";
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";

// The postgres adapter's statement spans, through an in-memory exporter. PGlite's statements are not traced.

const url = testDatabaseUrl();
const USER_ID = "0b6f3a4e-2c1d-4e5f-8a9b-1c2d3e4f5a6b";

describeIfAvailable(missingPostgresServer(), "database spans on node-postgres", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("test");
  let postgres: Postgres;

  /** Runs `work` as a traced operation; the statement spans made, and the operation's span. */
  async function traced(work: () => Promise<unknown>): Promise<{ parent: ReadableSpan; statements: ReadableSpan[] }> {
    exporter.reset();
    await tracer.startActiveSpan("operation", async (span) => {
      try {
        await work();
      } catch {
        // a failing statement's span is what is looked at
      } finally {
        span.end();
      }
    });
    const spans = exporter.getFinishedSpans();
    const parent = spans.find((span) => span.name === "operation")!;
    return { parent, statements: spans.filter((span) => span !== parent) };
  }

  beforeAll(async () => {
    provider.register();
    postgres = await createPostgres({ url: url!, namespace: randomNamespace(), maxPoolSize: 2, tracer });
    await postgres.migrate();
  });
  beforeEach(() => exporter.reset());
  afterAll(async () => {
    await dropTables(postgres).catch(() => undefined);
    await postgres.close();
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it("makes none for a statement run outside any traced operation (the outbox's polls, the migrations)", async () => {
    await postgres.ping();
    await postgres.stores.users.findById(USER_ID);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("makes each statement a CLIENT span of the operation, with its text but never its values", async () => {
    const { parent, statements } = await traced(() => postgres.stores.users.findById(USER_ID));
    expect(statements).toHaveLength(1);
    const [statement] = statements;
    expect(statement?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(statement?.kind).toBe(SpanKind.CLIENT);
    expect(statement?.name).toBe("SELECT");
    const database = new URL(url!);
    expect(statement?.attributes).toMatchObject({
      "db.system.name": "postgresql",
      "db.namespace": database.pathname.slice(1),
      "db.operation.name": "SELECT",
      "server.address": database.hostname,
    });
    expect(statement?.attributes["db.query.text"]).toMatch(/^select .*\$1/s);
    expect(JSON.stringify(statement?.attributes)).not.toContain(USER_ID);
  });

  it("traces a transaction's statements on its connection, BEGIN to COMMIT", async () => {
    const { parent, statements } = await traced(() =>
      postgres.tx.run(async (stores) => stores.users.findById(USER_ID, { forUpdate: true })),
    );
    expect(statements.map((span) => span.name)).toEqual(["BEGIN", "SELECT", "COMMIT"]);
    for (const statement of statements) expect(statement.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });

  it("marks a failed statement with its SQLSTATE, not the server's message, which can quote a value", async () => {
    const { statements } = await traced(() => postgres.db.execute(sql`select ${"leaked-value"}::int`));
    expect(statements).toHaveLength(1);
    const [failed] = statements;
    expect(failed?.status).toEqual({ code: SpanStatusCode.ERROR });
    // invalid_text_representation: 'invalid input syntax for type integer: "leaked-value"'
    expect(failed?.attributes).toMatchObject({ "error.type": "22P02", "db.response.status_code": "22P02" });
    expect(failed?.events).toEqual([]);
    expect(JSON.stringify({ attributes: failed?.attributes, status: failed?.status })).not.toContain("leaked-value");
  });
});
