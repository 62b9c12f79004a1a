import { expect } from "vitest";
import { AuthError, type ErrorCode } from "../errors.ts";

/** Awaits the work and returns the AuthError it failed with, failing the test if it did not fail with `code`. */
export async function failsWith(code: ErrorCode, work: Promise<unknown>): Promise<AuthError> {
  let failure: unknown;
  try {
    await work;
  } catch (error) {
    failure = error;
  }
  expect(failure, `expected AuthError ${code}`).toBeInstanceOf(AuthError);
  expect((failure as AuthError).code).toBe(code);
  return failure as AuthError;
}

export const context = { ip: "203.0.113.7", userAgent: "vitest" } as const;
