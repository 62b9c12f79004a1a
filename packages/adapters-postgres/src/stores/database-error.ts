import { DrizzleQueryError } from "drizzle-orm/errors";
import { DeadlinePassed } from "../drivers/time-budget.ts";
import { asServiceFailure } from "./service-failure.ts";

/**
 * A statement the database refused. drizzle's own error puts the statement's parameters in its message (and
 * PGlite's error carries them too): password and token digests that must not reach a log. This one keeps what
 * is needed to act on the failure, and the SQL text, which holds no values.
 */
export class DatabaseError extends Error {
  // Declared before `name`, so that the own properties come in the order they had as constructor parameters.
  /** SQLSTATE, e.g. `23505` for a unique violation; undefined when the failure was not the server's. */
  readonly code: string | undefined;
  readonly constraint: string | undefined;
  readonly table: string | undefined;
  readonly query: string;
  override readonly name = "DatabaseError";

  constructor(message: string, details: DatabaseErrorDetails) {
    super(message);
    this.code = details.code;
    this.constraint = details.constraint;
    this.table = details.table;
    this.query = details.query;
  }
}

/** What a DatabaseError tells of the failure besides its message. */
export interface DatabaseErrorDetails {
  readonly code: string | undefined;
  readonly constraint: string | undefined;
  readonly table: string | undefined;
  readonly query: string;
}

const field = (value: unknown, key: string): string | undefined => {
  const found = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof found === "string" ? found : undefined;
};

/**
 * The error a store should throw for `error`: a DatabaseError in place of drizzle's wrapper (or what it wraps when
 * the statement was never sent, for want of time), anything else as is.
 */
export function toDatabaseError(error: unknown): unknown {
  if (!(error instanceof DrizzleQueryError)) return error;
  const cause: unknown = error.cause;
  if (cause instanceof DeadlinePassed) return cause;
  const message = cause instanceof Error ? cause.message : "query failed";
  return new DatabaseError(message, {
    code: field(cause, "code"),
    constraint: field(cause, "constraint"),
    table: field(cause, "table"),
    query: error.query,
  });
}

/** The constraint a unique violation (SQLSTATE 23505) names; null for every other error. */
export function violatedUniqueConstraint(error: unknown): string | null {
  const translated = toDatabaseError(error);
  if (!(translated instanceof DatabaseError) || translated.code !== "23505") return null;
  return translated.constraint ?? null;
}

/**
 * The same store, whose methods reject with toDatabaseError's translation, or with the AuthError a timeout or an
 * unavailable database is to the client (asServiceFailure).
 */
export function translatingErrors<S extends object>(store: S): S {
  const translated: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(store)) {
    translated[name] =
      typeof member === "function"
        ? async (...args: unknown[]) => {
            try {
              return await member.apply(store, args);
            } catch (error) {
              throw asServiceFailure(toDatabaseError(error));
            }
          }
        : member;
  }
  return translated as S;
}
