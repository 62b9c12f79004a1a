import { describe, expect, it } from "vitest";
import { createLogSmsSender, type LoggedSms } from "../src/index.ts";

describe("log SMS sender", () => {
  it("writes the text as a provider would send it, and the code for a developer to type", async () => {
    const written: LoggedSms[] = [];
    const sender = createLogSmsSender({ template: "Code: {{ .Code }}", write: (sms) => written.push(sms) });
    await sender.send({ kind: "confirmation", to: "+15550100000", otp: "112233" });
    expect(written).toEqual([
      { kind: "confirmation", to: "+15550100000", channel: "sms", text: "Code: 112233", code: "112233" },
    ]);
  });

  it("takes WhatsApp too, as the provider it stands for may send it, and says so", async () => {
    const written: LoggedSms[] = [];
    const sender = createLogSmsSender({ write: (sms) => written.push(sms) });
    expect(sender.sendsWhatsapp).toBe(true);
    await sender.send({ kind: "otp", to: "+15550100000", otp: "778899", channel: "whatsapp" });
    expect(written).toEqual([
      { kind: "otp", to: "+15550100000", channel: "whatsapp", text: "Your code is 778899", code: "778899" },
    ]);
  });

  it("writes a phone factor's challenge with MFA_PHONE_TEMPLATE", async () => {
    const written: LoggedSms[] = [];
    const sender = createLogSmsSender({
      template: "Code: {{ .Code }}",
      mfaTemplate: "MFA code: {{ .Code }}",
      write: (sms) => written.push(sms),
    });
    await sender.send({ kind: "mfa", to: "+15550100000", otp: "445566" });
    expect(written).toEqual([
      { kind: "mfa", to: "+15550100000", channel: "sms", text: "MFA code: 445566", code: "445566" },
    ]);
  });
});
