import { describe, expect, it } from "vitest";
import type { AuthEmail, AuthEmailKind } from "../../model/mail.ts";
import type { Mailer } from "../../ports/mailer.ts";

/** A mail as its recipient reads it: the address it reached, and everything it says (subject and body). */
export interface DeliveredMail {
  readonly to: string;
  readonly text: string;
  /** The id the recipient's client knows the mail by (SMTP: the Message-ID header). */
  readonly messageId: string;
}

export interface MailerSubject {
  readonly mailer: Mailer;
  /** Every mail delivered so far, in any order; waits for those in flight when delivery is asynchronous. */
  readonly delivered: (count: number) => Promise<readonly DeliveredMail[]>;
  /** A mailer of the same kind whose server cannot be reached, for mailers that have one. */
  readonly unreachable?: Mailer;
  readonly close?: () => Promise<void>;
}

const link = (to: string, n: number) => ({
  to,
  linkToken: `pkce_contract${n}token`,
  otp: `80${n}417`,
  redirectTo: "https://app.example.com/done",
});

/** One mail of every kind: a kind the domain adds fails to compile here until the contract covers it. */
const SAMPLES: { readonly [K in AuthEmailKind]: Extract<AuthEmail, { kind: K }> } = {
  confirmation: { ...link("confirm@example.com", 1), kind: "confirmation", linkType: "signup", data: { name: "Ada" } },
  invite: { ...link("invitee@example.com", 2), kind: "invite", linkType: "invite", data: {} },
  magic_link: { ...link("magic@example.com", 3), kind: "magic_link", linkType: "magiclink", data: {} },
  recovery: { ...link("recover@example.com", 4), kind: "recovery", linkType: "recovery", data: {} },
  email_change: {
    ...link("new.address@example.com", 5),
    kind: "email_change",
    linkType: "email_change",
    email: "old.address@example.com",
    newEmail: "new.address@example.com",
    data: {},
  },
  reauthentication: { kind: "reauthentication", to: "nonce@example.com", otp: "806417" },
  password_changed: { kind: "password_changed", to: "password@example.com" },
  email_changed: {
    kind: "email_changed",
    to: "was@example.com",
    email: "now@example.com",
    oldEmail: "was@example.com",
  },
  phone_changed: { kind: "phone_changed", to: "phone@example.com", phone: "+15550100777", oldPhone: "+15550100666" },
  identity_linked: { kind: "identity_linked", to: "linked@example.com", provider: "github" },
  identity_unlinked: { kind: "identity_unlinked", to: "unlinked@example.com", provider: "gitlab" },
  mfa_factor_enrolled: { kind: "mfa_factor_enrolled", to: "enrolled@example.com", factorType: "totp" },
  mfa_factor_unenrolled: { kind: "mfa_factor_unenrolled", to: "unenrolled@example.com", factorType: "phone" },
};

/** What the recipient must be able to read in each: the link's token, the code, the addresses it is about. */
function essentials(email: AuthEmail): string[] {
  switch (email.kind) {
    case "email_change":
      return [email.linkToken, email.otp, email.newEmail];
    case "confirmation":
    case "invite":
    case "magic_link":
    case "recovery":
      return [email.linkToken, email.otp];
    case "reauthentication":
      return [email.otp];
    case "password_changed":
      return [];
    case "email_changed":
      return [email.email, email.oldEmail];
    case "phone_changed":
      return [email.phone];
    case "identity_linked":
    case "identity_unlinked":
      return [email.provider];
    case "mfa_factor_enrolled":
    case "mfa_factor_unenrolled":
      return [email.factorType];
  }
}

/**
 * What every Mailer must do: deliver each kind of mail, whole, to its recipient, or throw so the outbox retries; and
 * give the mail an id that depends on the message id alone, so a copy sent again reads as the same mail.
 */
export function describeMailerContract(name: string, setup: () => Promise<MailerSubject>): void {
  describe(`${name}: mailer contract`, () => {
    it.each(Object.values(SAMPLES))(
      "delivers a $kind mail to its recipient with what they need in it",
      async (email) => {
        const { mailer, delivered, close } = await setup();
        await mailer.send(email, { messageId: `contract-${email.kind}` });
        const [mail, ...more] = await delivered(1);
        expect(more).toEqual([]);
        expect(mail?.to).toBe(email.to);
        for (const needed of essentials(email)) expect(mail?.text).toContain(needed);
        // An operator can find the outbox entry from the mail.
        expect(mail?.messageId).toContain(`contract-${email.kind}`);
        await close?.();
      },
    );

    it("keeps mails sent at once apart", async () => {
      const { mailer, delivered, close } = await setup();
      const emails = [1, 2, 3, 4, 5].map((n) => ({ ...SAMPLES.magic_link, ...link(`parallel${n}@example.com`, n) }));
      await Promise.all(emails.map((email, n) => mailer.send(email, { messageId: `parallel-${n}` })));
      const mails = await delivered(emails.length);
      for (const email of emails) {
        const mine = mails.filter((mail) => mail.to === email.to);
        expect(mine).toHaveLength(1);
        expect(mine[0]?.text).toContain(email.linkToken);
      }
      await close?.();
    });

    it("gives a mail sent again under one message id the same id, and other messages other ids", async () => {
      const { mailer, delivered, close } = await setup();
      const again = { ...SAMPLES.recovery, to: "again@example.com" };
      const other = { ...SAMPLES.recovery, to: "other@example.com" };
      await mailer.send(again, { messageId: "7d1c0f52-retried" });
      await mailer.send(again, { messageId: "7d1c0f52-retried" });
      await mailer.send(other, { messageId: "9a4e3b10-other" });
      const mails = await delivered(3);
      const [first, second] = mails.filter((mail) => mail.to === again.to).map((mail) => mail.messageId);
      const [others] = mails.filter((mail) => mail.to === other.to).map((mail) => mail.messageId);
      expect(first).toBeDefined();
      expect(second).toBe(first);
      expect(others).toBeDefined();
      expect(others).not.toBe(first);
      await close?.();
    });

    it("throws when its server cannot be reached, so the outbox tries again", async (context) => {
      const { unreachable, close } = await setup();
      if (!unreachable) return context.skip("this mailer has no server to be unreachable");
      await expect(unreachable.send(SAMPLES.recovery, { messageId: "unreachable" })).rejects.toBeInstanceOf(Error);
      await close?.();
    });
  });
}
