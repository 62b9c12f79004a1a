import { describe, expect, it } from "vitest";
import { DEFAULT_MFA_PHONE_TEMPLATE, DEFAULT_SMS_TEMPLATE, smsText, smsTextOf } from "../src/index.ts";

describe("smsText", () => {
  it("uses GoTrue's default template when none or an empty one is set", () => {
    expect(DEFAULT_SMS_TEMPLATE).toBe("Your code is {{ .Code }}");
    expect(smsText(undefined, "123456")).toBe("Your code is 123456");
    expect(smsText("", "123456")).toBe("Your code is 123456");
  });

  it("replaces every {{ .Code }}, with or without spaces", () => {
    expect(smsText("{{.Code}} / {{ .Code }} / {{   .Code  }}", "042")).toBe("042 / 042 / 042");
  });

  it("expands nothing else", () => {
    expect(smsText("{{ .Token }} {{ .Data.x }} {{ if .Code }}x{{ end }} {{ .code }} $&", "99")).toBe(
      "{{ .Token }} {{ .Data.x }} {{ if .Code }}x{{ end }} {{ .code }} $&",
    );
  });

  it("inserts the code literally, never as a replacement pattern", () => {
    expect(smsText("Code: {{ .Code }}", "$&$1")).toBe("Code: $&$1");
  });
});

describe("smsTextOf", () => {
  const templates = { template: "Sign in with {{ .Code }}", mfaTemplate: "Second step: {{ .Code }}" };

  it("writes a phone factor's challenge with MFA_PHONE_TEMPLATE, every other kind with SMS_TEMPLATE", () => {
    expect(smsTextOf({ kind: "mfa", to: "+15550100000", otp: "246810" }, templates)).toBe("Second step: 246810");
    for (const kind of ["confirmation", "otp", "phone_change", "reauthentication"] as const)
      expect(smsTextOf({ kind, to: "+15550100000", otp: "246810" }, templates)).toBe("Sign in with 246810");
  });

  it("uses GoTrue's default MFA_PHONE_TEMPLATE when none or an empty one is set, never SMS_TEMPLATE", () => {
    expect(DEFAULT_MFA_PHONE_TEMPLATE).toBe("Your code is {{ .Code }}");
    const sms = { kind: "mfa", to: "+15550100000", otp: "246810" } as const;
    expect(smsTextOf(sms, { template: templates.template })).toBe("Your code is 246810");
    expect(smsTextOf(sms, { ...templates, mfaTemplate: "" })).toBe("Your code is 246810");
    expect(smsTextOf(sms, { mfaTemplate: "{{ .Token }} {{.Code}} $&" })).toBe("{{ .Token }} 246810 $&");
  });
});
