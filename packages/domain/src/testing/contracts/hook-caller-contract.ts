import { describe, expect, it } from "vitest";
import { AuthError, type ErrorCode } from "../../errors.ts";
import type { HookCaller } from "../../ports/hooks.ts";
import type { Stores } from "../../ports/stores.ts";

/** How the hook behind a caller behaves, as each kind of hook can be made to. */
export type HookBehaviour =
  /** Answers this JSON (HTTP: 200 with application/json; a function: returns it as jsonb). */
  | { readonly kind: "answer"; readonly body: unknown }
  /** Answers nothing (HTTP: 204; a function: returns NULL). */
  | { readonly kind: "nothing" }
  /** Takes longer than the caller waits. */
  | { readonly kind: "slow" }
  /** Fails on its own account (HTTP: 500; a function: raises an exception with the message `boom`). */
  | { readonly kind: "fail" };

/** An error as the client hears it: the code, the status when the hook chose it, and the message if fixed. */
export interface ExpectedHookError {
  readonly code: ErrorCode;
  readonly hookStatus?: number;
  readonly message?: string | RegExp;
}

export interface HookCallerSubject {
  /** A caller of a hook that behaves as asked, and every payload the hook has been sent so far. */
  hook(behaviour: HookBehaviour): Promise<{ caller: HookCaller; received: () => Promise<readonly unknown[]> }>;
  /** The stores a call is given (a function in the database runs on them). */
  readonly stores: Stores;
  /** What a hook that is too slow, and one that fails, come to with this kind of hook: GoTrue's differ. */
  readonly expected: { readonly slow: ExpectedHookError; readonly fail: ExpectedHookError };
  readonly close?: () => Promise<void>;
}

const PAYLOAD = {
  metadata: { uuid: "8a2c4a1e-0f6b-4a51-9d38-5f1c2f1f7d10", time: "2026-11-28T10:00:00.000Z", name: "send-email" },
  user_id: "3f0c1d5e-6a7b-4c8d-9e0f-1a2b3c4d5e6f",
  claims: { aud: "authenticated", nested: { list: [1, "two", null, true] }, unicode: "żółw ✓" },
};

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => expect.fail("the call succeeded"),
    (error: unknown) => error,
  );
}

function expectError(error: unknown, expected: ExpectedHookError): void {
  expect(error).toBeInstanceOf(AuthError);
  const authError = error as AuthError;
  expect(authError.code).toBe(expected.code);
  if (expected.hookStatus !== undefined) expect(authError.hookStatus).toBe(expected.hookStatus);
  if (typeof expected.message === "string") expect(authError.message).toBe(expected.message);
  else if (expected.message) expect(authError.message).toMatch(expected.message);
}

/**
 * What every HookCaller must do, whatever the hook is (an HTTP endpoint, a function in the database): send the
 * payload as it is, read the answer as GoTrue does (its hookserrors), and fail only with an AuthError the client
 * may hear.
 */
export function describeHookCallerContract(name: string, setup: () => Promise<HookCallerSubject>): void {
  describe(`${name}: hook caller contract`, () => {
    it("sends the payload as it is and returns the hook's answer", async () => {
      const subject = await setup();
      const answer = { claims: { role: "admin" }, extra: [1, 2] };
      const { caller, received } = await subject.hook({ kind: "answer", body: answer });
      expect(await caller.call(PAYLOAD, subject.stores)).toEqual(answer);
      expect(await received()).toEqual([PAYLOAD]);
      await subject.close?.();
    });

    it("returns null when the hook answers nothing", async () => {
      const subject = await setup();
      const { caller } = await subject.hook({ kind: "nothing" });
      expect(await caller.call(PAYLOAD, subject.stores)).toBeNull();
      await subject.close?.();
    });

    it("fails with the hook's own error: its message, and the status it chose", async () => {
      const subject = await setup();
      const body = { error: { http_code: 403, message: "Only company addresses may sign up" } };
      const { caller } = await subject.hook({ kind: "answer", body });
      const error = await failureOf(caller.call(PAYLOAD, subject.stores));
      expectError(error, { code: "unknown", hookStatus: 403, message: "Only company addresses may sign up" });
      await subject.close?.();
    });

    it("fails with 500 for the hook's error that names no status", async () => {
      const subject = await setup();
      const { caller } = await subject.hook({ kind: "answer", body: { error: { message: "no" } } });
      const error = await failureOf(caller.call(PAYLOAD, subject.stores));
      expectError(error, { code: "unexpected_failure", hookStatus: 500, message: "no" });
      await subject.close?.();
    });

    it("takes an error without a message for an answer, as GoTrue does", async () => {
      const subject = await setup();
      const body = { error: { http_code: 400, message: "" }, decision: "continue" };
      const { caller } = await subject.hook({ kind: "answer", body });
      expect(await caller.call(PAYLOAD, subject.stores)).toEqual(body);
      await subject.close?.();
    });

    it("fails cleanly when the answer is no JSON object", async () => {
      const subject = await setup();
      const { caller } = await subject.hook({ kind: "answer", body: ["not", "an", "object"] });
      const error = await failureOf(caller.call(PAYLOAD, subject.stores));
      expectError(error, { code: "unexpected_failure", message: "Error unmarshaling JSON output." });
      await subject.close?.();
    });

    it("fails with this kind's error when the hook is too slow", async () => {
      const subject = await setup();
      const { caller } = await subject.hook({ kind: "slow" });
      expectError(await failureOf(caller.call(PAYLOAD, subject.stores)), subject.expected.slow);
      await subject.close?.();
    });

    it("fails with this kind's error when the hook fails", async () => {
      const subject = await setup();
      const { caller } = await subject.hook({ kind: "fail" });
      expectError(await failureOf(caller.call(PAYLOAD, subject.stores)), subject.expected.fail);
      await subject.close?.();
    });

    it("tells where the hook is without its secrets", async () => {
      const subject = await setup();
      const { caller } = await subject.hook({ kind: "nothing" });
      expect(caller.uri).toMatch(/^(https?|pg-functions):\/\//);
      expect(caller.uri).not.toMatch(/whsec_/);
      await subject.close?.();
    });
  });
}
