import type { AuthEmail } from "@latchkey/domain";
import { describe, expect, it } from "vitest";
import { EMAIL_KINDS, type RenderOptions, renderEmail } from "../src/index.ts";
import { CODE, EMAILS, emailOf, hrefOf, REDIRECT_TO, TO, TOKEN } from "./support.ts";

const options: RenderOptions = {
  externalUrl: "https://auth.example.com/auth/v1",
  siteUrl: "https://app.example.com",
  urlPaths: { confirmation: "/c", invite: "/i", recovery: "/r", email_change: "/e" },
};

const PATHS: Partial<Record<AuthEmail["kind"], string>> = {
  confirmation: "/auth/v1/c",
  invite: "/auth/v1/i",
  magic_link: "/auth/v1/r",
  recovery: "/auth/v1/r",
  email_change: "/auth/v1/e",
};

describe("links", () => {
  it.each(EMAILS.filter((email) => "linkToken" in email))("$kind: external URL + its path setting", (email) => {
    const rendered = renderEmail(email, options);
    const link = new URL(rendered.link ?? "");
    expect(link.origin).toBe("https://auth.example.com");
    expect(link.pathname).toBe(PATHS[email.kind]);
    expect(link.searchParams.get("token")).toBe(TOKEN);
    expect(link.searchParams.get("type")).toBe("linkType" in email ? email.linkType : "");
    expect(link.searchParams.get("redirect_to")).toBe(REDIRECT_TO);
    expect(link.hash).toBe("");
    // `&` and `#` of redirect_to are encoded, not taken as the link's own query separator or fragment.
    expect(rendered.link).toContain(
      "redirect_to=https%3A%2F%2Fapp.example.com%2Fwelcome%3Fstep%3D2%26from%3Dmail%23done",
    );
    expect(hrefOf(rendered.html)).toBe(rendered.link);
  });

  it("defaults to /verify and keeps a single slash", () => {
    const rendered = renderEmail(emailOf("confirmation"), { externalUrl: "http://localhost:9999/", siteUrl: "x" });
    expect(rendered.link).toMatch(/^http:\/\/localhost:9999\/verify\?token=/);
  });

  it("uses an absolute URL path setting as it stands", () => {
    const rendered = renderEmail(emailOf("recovery"), {
      ...options,
      urlPaths: { recovery: "https://app.example.com/auth/confirm" },
    });
    expect(rendered.link).toMatch(/^https:\/\/app\.example\.com\/auth\/confirm\?token=/);
  });

  it("is absent from emails without one", () => {
    expect(renderEmail(emailOf("password_changed"), options).link).toBeUndefined();
    expect(renderEmail(emailOf("reauthentication"), options)).toMatchObject({ code: CODE });
  });
});

describe("subjects", () => {
  it.each(EMAILS)("$kind: the spec's default", (email) => {
    const expected = EMAIL_KINDS[email.kind].subject.replace("{{ .Token }}", CODE);
    expect(renderEmail(email, options).subject).toBe(expected);
  });

  it("reauthentication's default shows the code", () => {
    expect(renderEmail(emailOf("reauthentication"), options).subject).toBe(`${CODE} is your verification code`);
  });

  it("takes the configured subject, with variables, on one line", () => {
    const email = { ...emailOf("magic_link"), data: { name: "Ada\r\nBcc: evil@example.com" } };
    const subjects = { magic_link: "{{.Token}} signs {{ .Data.name }} in" };
    expect(renderEmail(email, { ...options, subjects }).subject).toBe(`${CODE} signs Ada Bcc: evil@example.com in`);
  });
});

describe("templates", () => {
  it("substitutes every variable, HTML-escaped", () => {
    const email = { ...emailOf("email_change"), data: { name: "<script>alert(1)</script>", age: 36 } };
    const template = [
      "{{ .SiteURL }}|{{ .Email }}|{{ .NewEmail }}|{{ .Token }}|{{ .TokenHash }}|{{ .RedirectTo }}",
      "|{{ .Data.name }}|{{ .Data.age }}|{{.ConfirmationURL}}|{{- .SendingTo -}}",
    ].join("");
    const { html, link } = renderEmail(email, options, template);
    expect(html).toBe(
      [
        `https://app.example.com|${TO}|ada@new.example.com|${CODE}|${TOKEN}`,
        "|https://app.example.com/welcome?step=2&amp;from=mail#done",
        "|&lt;script&gt;alert(1)&lt;/script&gt;|36",
        `|${(link ?? "").replaceAll("&", "&amp;")}|${TO}`,
      ].join(""),
    );
  });

  it("gives a second factor's notifications its type as FactorType, in the subject and the template", () => {
    const subjects = { mfa_factor_unenrolled: "{{ .FactorType }} was removed" };
    const template = "{{ .SiteURL }}|{{ .Email }}|{{ .FactorType }}|{{ .Data.x }}|{{ .Token }}";
    const rendered = renderEmail(emailOf("mfa_factor_unenrolled"), { ...options, subjects }, template);
    expect(rendered.subject).toBe("phone was removed");
    expect(rendered.html).toBe(`https://app.example.com|${TO}|phone||`);
    expect(renderEmail(emailOf("mfa_factor_enrolled"), options, "{{ .FactorType }}").html).toBe("totp");
  });

  it("never expands template syntax that came from user data", () => {
    const email = { ...emailOf("confirmation"), data: { name: "{{ .Token }} {{ .ConfirmationURL }}" } };
    const subjects = { confirmation: "Hi {{ .Data.name }}" };
    const { html, subject } = renderEmail(email, { ...options, subjects }, "<p>{{ .Data.name }}</p>");
    expect(html).toBe("<p>{{ .Token }} {{ .ConfirmationURL }}</p>");
    expect(subject).toBe("Hi {{ .Token }} {{ .ConfirmationURL }}");
  });

  it("renders unknown variables and other constructs as empty", () => {
    const email = { ...emailOf("recovery"), data: { nested: { a: 1 } } };
    const template =
      "[{{ .Nope }}][{{ if .Token }}x{{ end }}][{{ .Data.missing }}][{{ .Data.nested }}]" +
      "[{{ .Data.constructor }}][{{ .constructor }}][{{ .NewEmail }}][{{ .Email.Deep }}][{{}}]";
    expect(renderEmail(email, options, template).html).toBe("[][x][][][][][][][]");
  });

  it("keeps the built-in text part when a template supplies the HTML", () => {
    const email = emailOf("recovery");
    const rendered = renderEmail(email, options, "<p>custom</p>");
    expect(rendered.html).toBe("<p>custom</p>");
    expect(rendered.text).toBe(renderEmail(email, options).text);
  });
});

describe("built-in bodies", () => {
  it.each(EMAILS)("$kind: plain HTML and text holding the same link and code", (email) => {
    const rendered = renderEmail(email, options);
    expect(rendered.to).toBe(email.to);
    expect(rendered.html).not.toMatch(/<script|<img|src=/i);
    expect(rendered.html).toContain('<html lang="en">');
    expect(rendered.text.length).toBeGreaterThan(20);
    if (rendered.link) {
      const escaped = rendered.link.replaceAll("&", "&amp;");
      expect(rendered.html.split(escaped).length - 1).toBe(2); // as the href and as visible text
      expect(rendered.text).toContain(rendered.link);
    }
    if (rendered.code) {
      expect(rendered.html).toContain(`<strong style="font-size:20px;letter-spacing:2px">${CODE}</strong>`);
      expect(rendered.text).toContain(CODE);
    }
  });

  it.each([
    ["mfa_factor_enrolled", "totp", "was added to your account"],
    ["mfa_factor_unenrolled", "phone", "was removed from your account"],
  ] as const)("%s: says which verification method, as GoTrue names it", (kind, factorType, what) => {
    const rendered = renderEmail(emailOf(kind), options);
    expect(rendered.text).toContain(`The verification method ${factorType} (`);
    expect(rendered.text).toContain(`${what} ${TO}`);
    expect(rendered.html).toContain(`The verification method ${factorType} (`);
  });

  it("escapes addresses and names in the HTML", () => {
    const email = { kind: "email_changed", to: TO, email: "a<b>@example.com", oldEmail: "o&p@example.com" } as const;
    const rendered = renderEmail(email, options);
    expect(rendered.html).toContain("from o&amp;p@example.com to a&lt;b&gt;@example.com");
    expect(rendered.text).toContain("from o&p@example.com to a<b>@example.com");
  });
});
