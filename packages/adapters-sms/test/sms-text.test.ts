import { describe, expect, it } from "vitest";
import { DEFAULT_SMS_TEMPLATE, smsText } from "../src/index.ts";

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
