import { AuthError } from "@latchkey/domain";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { describe, expect, it } from "vitest";
import { DeadlinePassed } from "../src/drivers/time-budget.ts";
import { DatabaseError, toDatabaseError } from "../src/stores/database-error.ts";
import { asServiceFailure } from "../src/stores/service-failure.ts";

/** An error as node-postgres makes it: the server's SQLSTATE or Node's socket code in `code`. */
const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});
/** As a store sees it: drizzle's wrapper around pg's error, translated. */
const fromStore = (error: Error) => toDatabaseError(new DrizzleQueryError("select 1", [], error));

describe("asServiceFailure", () => {
  it.each([
    ["statement_timeout", pgError("canceling statement due to statement timeout", "57014")],
    ["lock_timeout", pgError("canceling statement due to lock timeout", "55P03")],
    ["pg-pool's wait for a connection", pgError("timeout exceeded when trying to connect")],
    ["a connection that took too long", pgError("Connection terminated due to connection timeout")],
    ["no time left", new DeadlinePassed("the deadline passed before the statement could start")],
    ["a full server until the deadline", new DeadlinePassed("full", { cause: pgError("too many", "53300") })],
  ])("%s is a request_timeout (504)", (_case, error) => {
    for (const thrown of [error, fromStore(error)]) {
      const failure = asServiceFailure(thrown);
      expect(failure).toBeInstanceOf(AuthError);
      expect(failure).toMatchObject({ code: "request_timeout", retryAfterSeconds: undefined, cause: thrown });
    }
  });

  it.each([
    ["connection refused", pgError("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")],
    ["connection reset", pgError("read ECONNRESET", "ECONNRESET")],
    ["an unknown host", pgError("getaddrinfo ENOTFOUND db", "ENOTFOUND")],
    ["a connection lost", pgError("Connection terminated unexpectedly")],
    ["a client whose connection broke", pgError("Client has encountered a connection error and is not queryable")],
    ["admin shutdown", pgError("terminating connection due to administrator command", "57P01")],
    ["crash shutdown", pgError("terminating connection because of crash of another server process", "57P02")],
    ["cannot connect now", pgError("the database system is starting up", "57P03")],
    ["read-only (a standby, a failover)", pgError("cannot execute INSERT in a read-only transaction", "25006")],
    ["too many clients, not waited for", pgError("sorry, too many clients already", "53300")],
    ["a full disk", pgError("could not extend file", "53100")],
    ["a connection exception", pgError("connection failure", "08006")],
    ["a pool being closed", pgError("Cannot use a pool after calling end on the pool")],
  ])("%s is service_unavailable (503) with a Retry-After", (_case, error) => {
    for (const thrown of [error, fromStore(error)]) {
      const failure = asServiceFailure(thrown);
      expect(failure).toBeInstanceOf(AuthError);
      expect(failure).toMatchObject({ code: "service_unavailable", retryAfterSeconds: 5, cause: thrown });
    }
  });

  it.each([
    ["a unique violation", pgError("duplicate key value violates unique constraint", "23505")],
    ["a syntax error", pgError('syntax error at or near "selec"', "42601")],
    ["a deadlock", pgError("deadlock detected", "40P01")],
    ["a bug", new TypeError("undefined is not a function")],
  ])("leaves %s as it is", (_case, error) => {
    expect(asServiceFailure(error)).toBe(error);
    const translated = fromStore(error);
    expect(asServiceFailure(translated)).toBe(translated);
  });

  it("leaves an AuthError as it is, even one caused by an outage", () => {
    const error = new AuthError("email_exists", "taken", { cause: pgError("x", "57P01") });
    expect(asServiceFailure(error)).toBe(error);
  });

  it("keeps the store's translation as the cause: no statement parameters reach the log", () => {
    const failure = asServiceFailure(fromStore(pgError("canceling statement due to lock timeout", "55P03")));
    expect((failure as AuthError).cause).toBeInstanceOf(DatabaseError);
  });
});
