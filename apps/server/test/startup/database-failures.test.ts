import { describe, expect, it } from "vitest";
import { databaseTarget, describeDatabaseFailure } from "../../src/startup/database-failures.ts";
import { waitForDatabase } from "../../src/startup/wait-for-database.ts";

const target = databaseTarget("postgres://auth:s3cret-pw@db.internal:6543/latchkey");
const codeError = (code: string, message = code) => Object.assign(new Error(message), { code });

describe("start-up database failures", () => {
  it("names where the database is, never the password", () => {
    expect(target).toEqual({ host: "db.internal", port: "6543", database: "latchkey", user: "auth" });
    expect(databaseTarget("postgres:///auth?host=/var/run/postgresql")).toMatchObject({
      host: "/var/run/postgresql",
      port: "5432",
    });
    expect(JSON.stringify(databaseTarget("postgres://u:pw-1@h/d"))).not.toContain("pw-1");
  });

  it("finds the socket's refusal inside an AggregateError and a wrapper's cause", () => {
    const refused = new AggregateError([codeError("ECONNREFUSED"), codeError("ECONNREFUSED")], "");
    const wrapped = new Error("Failed query", { cause: refused });
    expect(describeDatabaseFailure(wrapped, target)).toEqual({
      line: "the database at db.internal:6543 cannot be reached (ECONNREFUSED); check that PostgreSQL runs there and DATABASE_URL's host and port",
      waitable: true,
    });
    expect(describeDatabaseFailure(codeError("ENOTFOUND"), target)?.line).toContain("host db.internal is not known");
    expect(describeDatabaseFailure(codeError("57P03", "the database system is starting up"), target)?.waitable).toBe(
      true,
    );
  });

  it("does not wait for what waiting cannot fix, and leaves unknown errors to the caller", () => {
    expect(describeDatabaseFailure(codeError("28P01"), target)).toEqual({
      line: 'PostgreSQL at db.internal:6543 refused user "auth": wrong password; check DATABASE_URL\'s user and password',
      waitable: false,
    });
    expect(describeDatabaseFailure(codeError("3D000"), target)?.waitable).toBe(false);
    expect(describeDatabaseFailure(codeError("42501", "permission denied for schema public"), target)?.line).toBe(
      'user "auth" may not create Latchkey\'s tables in database "latchkey" (permission denied for schema public); run `latchkey migrate` as the database\'s owner, or grant it CREATE on the schema',
    );
    expect(describeDatabaseFailure(new Error("syntax error at or near"), target)).toBeUndefined();
  });

  it("retries a database that is not up for the time given, then fails with the line", async () => {
    const clock = { now: 0 };
    let pings = 0;
    const warnings: string[] = [];
    const waiting = waitForDatabase({
      ping: async () => {
        pings++;
        throw codeError("ECONNREFUSED");
      },
      target,
      waitSeconds: 5,
      log: { warn: (line: string) => warnings.push(line), info: () => undefined } as never,
      now: () => clock.now,
      sleep: async (ms) => {
        clock.now += ms;
      },
    });
    await expect(waiting).rejects.toThrow(/cannot be reached \(ECONNREFUSED\).* \(waited 5 s\)$/);
    expect(pings).toBe(6);
    expect(warnings).toHaveLength(1);
  });

  it("fails at once on a wrong password, and resolves once the database answers", async () => {
    let pings = 0;
    const log = { warn: () => undefined, info: () => undefined } as never;
    const wrongPassword = waitForDatabase({
      ping: async () => {
        pings++;
        throw codeError("28P01");
      },
      target,
      waitSeconds: 30,
      log,
      sleep: async () => undefined,
    });
    await expect(wrongPassword).rejects.toThrow(/wrong password/);
    expect(pings).toBe(1);
    let attempts = 0;
    await waitForDatabase({
      ping: async () => {
        if (++attempts < 3) throw codeError("ECONNREFUSED");
      },
      target,
      waitSeconds: 30,
      log,
      sleep: async () => undefined,
    });
    expect(attempts).toBe(3);
  });
});
