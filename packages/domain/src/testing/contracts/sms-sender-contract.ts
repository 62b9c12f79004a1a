import { describe, expect, it } from "vitest";
import { isAuthError } from "../../errors.ts";
import type { AuthSms } from "../../model/sms.ts";
import type { SmsSender } from "../../ports/sms-sender.ts";

/** An SMS as its recipient's phone shows it. */
export interface DeliveredSms {
  /** The number it went to, in whatever form the provider takes it (with or without the +). */
  readonly to: string;
  readonly text: string;
}

export interface SmsSenderSubject {
  readonly sender: SmsSender;
  /** Every SMS delivered so far, in any order. */
  readonly delivered: () => Promise<readonly DeliveredSms[]>;
  /** A sender of the same kind whose provider refuses the message for good (a bad number, rejected credentials). */
  readonly refused?: SmsSender;
  /** A sender of the same kind whose provider fails in a way that may pass (down, overloaded). */
  readonly failing?: SmsSender;
  readonly close?: () => Promise<void>;
}

/** Every kind of SMS: a kind the domain adds fails to compile here until the contract covers it. */
const EVERY_KIND: { readonly [K in AuthSms["kind"]]: true } = {
  confirmation: true,
  otp: true,
  phone_change: true,
  reauthentication: true,
  mfa: true,
};
const KINDS = Object.keys(EVERY_KIND) as AuthSms["kind"][];
const digits = (number: string) => number.replace(/\D/g, "");

/**
 * What every SmsSender must do: put the code in front of the number's owner, and tell a refusal for good (AuthError
 * sms_send_failed, which the client hears) from a failure the outbox should retry (any other error).
 */
export function describeSmsSenderContract(name: string, setup: () => Promise<SmsSenderSubject>): void {
  describe(`${name}: SMS sender contract`, () => {
    it.each(KINDS)("delivers a %s code to its number", async (kind) => {
      const { sender, delivered, close } = await setup();
      const sms: AuthSms = { kind, to: "+15550100123", otp: "730519" };
      await sender.send(sms);
      const [message, ...more] = await delivered();
      expect(more).toEqual([]);
      expect(digits(message?.to ?? "")).toBe(digits(sms.to));
      expect(message?.text).toContain(sms.otp);
      await close?.();
    });

    it("answers a refusal for good with sms_send_failed, in words that reveal nothing of the provider", async (context) => {
      const { refused, close } = await setup();
      if (!refused) return context.skip("this sender has no provider to refuse");
      const error: unknown = await refused
        .send({ kind: "otp", to: "+15550100124", otp: "730520" })
        .catch((caught: unknown) => caught);
      expect(isAuthError(error, "sms_send_failed")).toBe(true);
      expect((error as Error).message).toMatch(/^Error sending \w+ OTP to provider$/);
      await close?.();
    });

    it("answers a failure that may pass with an error that is no AuthError, so the outbox retries", async (context) => {
      const { failing, close } = await setup();
      if (!failing) return context.skip("this sender has no provider to fail");
      const error: unknown = await failing
        .send({ kind: "otp", to: "+15550100125", otp: "730521" })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect(isAuthError(error)).toBe(false);
      await close?.();
    });
  });
}
