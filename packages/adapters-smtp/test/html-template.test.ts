import { describe, expect, it } from "vitest";
import { expandHtmlTemplate } from "../src/html-template.ts";

const SITE = "https://app.example.com";
const CONFIRM = "https://auth.example.com/verify?token=pkce_abc&type=signup&redirect_to=https%3A%2F%2Fapp.example.com";

/** The template filled in with `{{ .Data.x }}` set to `x`, beside the usual SiteURL and ConfirmationURL. */
const fill = (template: string, x: string) =>
  expandHtmlTemplate(template, {
    values: new Map([
      ["SiteURL", SITE],
      ["ConfirmationURL", CONFIRM],
    ]),
    data: { x },
  });

describe("operator templates escape each value for where it stands, as Go's html/template does", () => {
  it("in text: as HTML", () => {
    expect(fill("<p>Hi {{ .Data.x }}</p>", "<script>alert('1')</script>")).toBe(
      "<p>Hi &lt;script&gt;alert(&#39;1&#39;)&lt;/script&gt;</p>",
    );
  });

  it("in a plain attribute: cannot close its quotes, single or double", () => {
    expect(fill('<a title="{{ .Data.x }}">', '"><script>alert(1)</script>')).toBe(
      '<a title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">',
    );
    expect(fill("<a title='{{ .Data.x }}'>", "' onmouseover='alert(1)")).toBe(
      "<a title='&#39; onmouseover=&#39;alert(1)'>",
    );
  });

  it.each([
    ["javascript:alert(document.domain)"],
    ["JavaScript:alert(1)"],
    [" javascript:alert(1)"],
    ["data:text/html,<script>alert(1)</script>"],
    ["vbscript:msgbox(1)"],
    ["file:///etc/passwd"],
    ["myapp://callback"],
  ])("at the start of a URL attribute: refuses %j", (url) => {
    expect(fill('<a href="{{ .Data.x }}">go</a>', url)).toBe('<a href="#ZgotmplZ">go</a>');
    expect(fill('<img src="{{ .Data.x }}">', url)).toBe('<img src="#ZgotmplZ">');
    expect(fill('<a HREF="{{ .Data.x }}">', url)).toBe('<a HREF="#ZgotmplZ">');
    expect(fill('<svg><a xlink:href="{{ .Data.x }}">', url)).toBe('<svg><a xlink:href="#ZgotmplZ">');
    expect(fill('<form action="{{ .Data.x }}">', url)).toBe('<form action="#ZgotmplZ">');
    expect(fill('<a data-url="{{ .Data.x }}">', url)).toBe('<a data-url="#ZgotmplZ">');
  });

  it("at the start of a URL attribute: keeps http(s), mailto and relative URLs, normalised", () => {
    expect(fill('<a href="{{ .Data.x }}">', "https://example.org/a b?q=1&r=2")).toBe(
      '<a href="https://example.org/a%20b?q=1&amp;r=2">',
    );
    expect(fill('<a href="{{ .Data.x }}">', "mailto:ada@example.com")).toBe('<a href="mailto:ada@example.com">');
    expect(fill('<a href="{{ .Data.x }}">', "/help#top")).toBe('<a href="/help#top">');
    expect(fill('<a href="{{ .ConfirmationURL }}">Confirm</a>', "")).toBe(
      `<a href="${CONFIRM.replaceAll("&", "&amp;")}">Confirm</a>`,
    );
  });

  it("further into a URL: normalised in the path, wholly encoded in the query", () => {
    expect(fill('<a href="{{ .SiteURL }}/{{ .Data.x }}">', 'x y"<')).toBe(`<a href="${SITE}/x%20y%22%3C">`);
    expect(fill('<a href="{{ .SiteURL }}/?ref={{ .Data.x }}">', "a&b=c d/e")).toBe(
      `<a href="${SITE}/?ref=a%26b%3Dc%20d%2Fe">`,
    );
  });

  it("in an unquoted attribute: cannot start another attribute", () => {
    expect(fill("<a href={{ .Data.x }}>", "https://example.org/ onmouseover=alert(1)")).toBe(
      "<a href=https&#58;&#47;&#47;example.org&#47;&#37;20onmouseover&#61;alert&#37;281&#37;29>",
    );
    expect(fill("<a title={{ .Data.x }}>", "x onmouseover=alert(1)")).toBe(
      "<a title=x&#32;onmouseover&#61;alert&#40;1&#41;>",
    );
  });

  it("in an event handler or a script element: stays a value", () => {
    expect(fill(`<a onclick="go('{{ .Data.x }}')">`, "');alert(1);//")).toBe(
      `<a onclick="go('\\u0027\\u0029\\u003balert\\u00281\\u0029\\u003b\\u002f\\u002f')">`,
    );
    expect(fill('<script>var x = "{{ .Data.x }}";</script><p>{{ .Data.x }}</p>', "</script><script>alert(1)")).toBe(
      '<script>var x = "\\u003c\\u002fscript\\u003e\\u003cscript\\u003ealert\\u00281\\u0029";</script>' +
        "<p>&lt;/script&gt;&lt;script&gt;alert(1)</p>",
    );
  });

  it("in style: only a plain value", () => {
    expect(fill('<p style="color: {{ .Data.x }}">', "#336699")).toBe('<p style="color: #336699">');
    expect(fill('<p style="color: {{ .Data.x }}">', "red;background:url(javascript:alert(1))")).toBe(
      '<p style="color: ZgotmplZ">',
    );
    expect(fill("<style>p { color: {{ .Data.x }} }</style>", "red}</style><script>")).toBe(
      "<style>p { color: ZgotmplZ }</style>",
    );
  });

  it("in a comment: nothing; where an attribute's name stands: only a plain name", () => {
    expect(fill("<!-- {{ .Data.x }} --><p>{{ .Data.x }}</p>", "secret")).toBe("<!--  --><p>secret</p>");
    expect(fill("<a {{ .Data.x }}>", "onclick=alert(1)")).toBe("<a ZgotmplZ>");
    expect(fill("<textarea>{{ .Data.x }}</textarea>", "</textarea><b>")).toBe(
      "<textarea>&lt;/textarea&gt;&lt;b&gt;</textarea>",
    );
  });

  it("follows the document past earlier values and tags", () => {
    const template =
      '<a href="{{ .Data.x }}">{{ .Data.x }}</a><img alt="{{ .Data.x }}" src="{{ .Data.x }}"><b>{{ .Data.x }}</b>';
    expect(fill(template, "javascript:x")).toBe(
      '<a href="#ZgotmplZ">javascript:x</a><img alt="javascript:x" src="#ZgotmplZ"><b>javascript:x</b>',
    );
  });
});
