import { describe, expect, it } from "vitest";
import { chooseRedirect, isAllowedRedirect, type RedirectPolicy } from "./redirect.ts";

const policy: RedirectPolicy = {
  siteUrl: "https://site.com",
  allowList: [
    "https://app.site.com/**",
    "https://*.preview.site.com/**",
    "myapp://callback",
    "http://localhost:3000/**",
  ],
};

/** Globs that accept any web URL, so only the structural checks stand between these candidates and acceptance. */
const permissive: RedirectPolicy = { siteUrl: "https://site.com", allowList: ["https://**/**", "http://**/**"] };

/** A loopback SITE_URL: any port is accepted, which is what makes numeric IPv4 spellings dangerous. */
const loopback: RedirectPolicy = { siteUrl: "http://127.0.0.1:3000", allowList: [] };

/** Accepted candidates must come back from `chooseRedirect` byte for byte, not re-serialised. */
function expectAccepted(candidate: string, p: RedirectPolicy): void {
  expect(isAllowedRedirect(candidate, p)).toBe(true);
  expect(chooseRedirect(["//evil.invalid", candidate], p)).toBe(candidate);
}

function expectRejected(candidate: string, p: RedirectPolicy): void {
  expect(isAllowedRedirect(candidate, p)).toBe(false);
  expect(chooseRedirect([candidate], p)).toBe(p.siteUrl);
}

describe("isAllowedRedirect: accepted, returned unchanged", () => {
  it.each([
    ["same origin, path, query and fragment", "https://site.com/welcome?x=1#frag"],
    ["SITE_URL itself", "https://site.com"],
    ["scheme and host compared case-insensitively", "HTTPS://SITE.COM/"],
    ["mixed-case host", "https://Site.Com/path"],
    ["explicit default port equals no port", "https://site.com:443/a"],
    ["path does not matter for SITE_URL", "https://site.com/a/../b"],
    ["`**` glob, deep path and query", "https://app.site.com/deep/path?x=1"],
    ["`**` glob, bare origin", "https://app.site.com"],
    ["`..;` is no dot segment and stays on app.site.com", "https://app.site.com/..;/x"],
    ["`*` glob covers one label", "https://pr-12.preview.site.com/a"],
    ["allow-listed port", "http://localhost:3000/cb"],
    ["custom scheme named exactly", "myapp://callback"],
    ["custom scheme, fragment stripped before matching", "myapp://callback#x"],
    ["custom scheme, case-insensitive scheme", "MYAPP://callback"],
    ["custom scheme, case-insensitive host", "myapp://CALLBACK"],
  ])("%s: %s", (_reason, candidate) => expectAccepted(candidate, policy));
});

describe("isAllowedRedirect: rejected", () => {
  it.each([
    ["other host", "https://evil.com"],
    ["SITE_URL host as a prefix", "https://site.com.evil.com"],
    ["allowed host as a prefix", "https://app.site.com.evil.com/x"],
    ["site in the path", "https://evil.com/site.com"],
    ["site in the query", "https://evil.com?site.com"],
    ["site in the fragment", "https://evil.com#https://site.com"],
    ["userinfo naming the site", "https://site.com@evil.com"],
    ["userinfo on the site", "https://evil.com@site.com"],
    ["username and password", "https://user:pw@site.com/"],
    ["username only", "https://user@site.com/"],
    ["empty userinfo", "https://@site.com/"],
    ["several `@`", "https://a@b@site.com/"],
    ["encoded `@` in the host", "https://site.com%40evil.com/"],
    ["scheme-relative", "//evil.com"],
    ["scheme-relative to the site", "//site.com"],
    ["triple slash", "///evil.com"],
    ["slash-backslash", "/\\evil.com"],
    ["double backslash", "\\\\evil.com"],
    ["relative path", "/dashboard"],
    ["bare word", "dashboard"],
    ["empty string", ""],
    ["scheme without slashes", "https:evil.com"],
    ["scheme without slashes, repaired to the site by WHATWG", "https:site.com"],
    ["one slash, repaired to the site by WHATWG", "https:/site.com"],
    ["three slashes, repaired to the site by WHATWG", "https:///site.com"],
    ["backslashes after the scheme", "https:\\\\site.com"],
    ["upper-case other host", "HTTPS://EVIL.COM"],
    ["leading space", " https://site.com"],
    ["trailing space", "https://site.com "],
    ["space in the path", "https://site.com/a b"],
    ["newline inside the host", "https://site.com\n.evil.com"],
    ["tab inside the host", "https://si\tte.com/"],
    ["tab in the path", "https://site.com/\tx"],
    ["NUL", "https://site.com/\u0000"],
    ["DEL", "https://site.com/\u007f"],
    ["C1 control", "https://site.com/\u0085"],
    ["no-break space", "https://site.com/\u00a0"],
    ["backslash before `@`", "https://site.com\\@evil.com"],
    ["backslash in the authority", "https://evil.com\\site.com"],
    ["backslash in the query", "https://site.com/?a=\\"],
    ["quote", 'https://site.com/"onmouseover=x'],
    ["angle brackets", "https://site.com/<script>"],
    ["encoded slashes and traversal in userinfo", "https://app.site.com%2F..%2F@evil.com"],
    ["double-encoded slash in userinfo", "https://app.site.com%252F@evil.com"],
    ["percent-encoded dot in an allowed host", "https://app%2Esite.com/"],
    ["percent-encoded dot in the site host", "https://site%2ecom/"],
    ["percent-encoded letter in the site host", "https://%73ite.com/"],
    ["trailing-dot host", "https://site.com./"],
    ["javascript:", "javascript:alert(1)"],
    ["data:", "data:text/html,x"],
    ["file:", "file:///etc/passwd"],
    ["vbscript:", "vbscript:x"],
    ["http when SITE_URL is https", "http://site.com"],
    ["websocket scheme", "wss://site.com/"],
    ["other port on a non-loopback site", "https://site.com:8443"],
    ["explicit port other than the default", "https://site.com:80/"],
    ["port with a leading zero", "https://site.com:0443/"],
    ["empty port", "https://site.com:/"],
    ["punycode look-alike", "https://xn--ste-5la.com"],
    ["Cyrillic і look-alike", "https://s\u0456te.com"],
    ["full-width letters that IDNA maps to the site", "https://\uff53\uff49\uff54\uff45.com/"],
    ["allowed glob host as a prefix", "https://app.site.com.evil.com/"],
    ["`*` does not cross `.`", "https://a.b.preview.site.com/"],
    ["glob suffix in the path", "https://evil.com/.preview.site.com/"],
    ["glob `.` is literal", "https://appXsite.com/"],
    ["allow list is exact about ports", "http://localhost:3001/cb"],
    ["allow list is exact about ports, default port", "http://localhost/cb"],
    ["custom scheme with a traversal", "myapp://callback/../evil"],
    ["custom scheme with more path", "myapp://callback/extra"],
    ["custom scheme with a query", "myapp://callback?x=1"],
    ["custom scheme, longer host", "myapp://callback.evil.com"],
    ["custom scheme, no authority", "myapp:callback"],
    ["other custom scheme", "otherapp://callback"],
    ["over the length cap", `https://site.com/${"a".repeat(2048)}`],
  ])("%s: %j", (_reason, candidate) => expectRejected(candidate, policy));
});

describe("isAllowedRedirect: structural checks hold even under a catch-all allow list", () => {
  it.each([
    ["https://site.com@evil.com", "userinfo"],
    ["https://user:pw@evil.com/", "userinfo"],
    ["https://app.site.com./x", "trailing-dot host"],
    ["https://app%2Esite.com/", "percent-encoded host"],
    ["https://s\u0456te.com/", "Unicode host"],
    ["https:evil.com", "missing slashes"],
    ["https://site.com\\@evil.com", "backslash"],
    [" https://evil.com", "leading space"],
    ["http://2130706433/", "decimal IPv4"],
    [`https://site.com/${"a".repeat(2048)}`, "length cap"],
  ])("rejects %j (%s)", (candidate) => expectRejected(candidate, permissive));

  it("still accepts well-formed URLs, so the rejections above are structural", () => {
    expectAccepted("https://evil.com/x?y=1", permissive);
    expectAccepted("http://127.0.0.1:8080/", permissive);
  });
});

describe("isAllowedRedirect: loopback SITE_URL", () => {
  it.each([
    ["any port on the loopback site", "http://127.0.0.1:5173/cb"],
    ["no port on the loopback site", "http://127.0.0.1/"],
  ])("accepts %s: %s", (_reason, candidate) => expectAccepted(candidate, loopback));

  it.each([
    ["decimal IPv4", "http://2130706433/"],
    ["hexadecimal IPv4", "http://0x7f.0.0.1/"],
    ["whole hexadecimal IPv4", "http://0x7f000001/"],
    ["octal IPv4", "http://0177.0.0.1/"],
    ["shortened IPv4", "http://127.1/"],
    ["scheme still counts", "https://127.0.0.1:3000/"],
    ["another loopback name is another host", "http://localhost:3000/"],
    ["look-alike host", "http://127.0.0.1.evil.com:3000/"],
  ])("rejects %s: %s", (_reason, candidate) => expectRejected(candidate, loopback));

  it("ignores the port for localhost and [::1] as well, but wants canonical IPv6", () => {
    const localhost: RedirectPolicy = { siteUrl: "http://localhost:3000", allowList: [] };
    expectAccepted("http://localhost:5173/cb", localhost);
    expectAccepted("http://LOCALHOST:8080/", localhost);
    expectRejected("http://localhost.evil.com:3000/", localhost);
    const ipv6: RedirectPolicy = { siteUrl: "http://[::1]:3000", allowList: [] };
    expectAccepted("http://[::1]:5173/", ipv6);
    expectRejected("http://[0:0:0:0:0:0:0:1]:3000/", ipv6);
  });

  it("does not ignore the port for other hosts", () => {
    expectRejected("https://app.site.com:8443/", { siteUrl: "https://app.site.com:443", allowList: [] });
  });
});

describe("isAllowedRedirect: allow-list globs", () => {
  it("keeps a host-side `**` out of the path, the query and the fragment", () => {
    const vercel: RedirectPolicy = { siteUrl: "https://site.com", allowList: ["https://**--team.vercel.app/**"] };
    expectAccepted("https://feature-x--team.vercel.app/cb", vercel);
    expectRejected("https://evil.com/--team.vercel.app/", vercel);
    expectRejected("https://evil.com?--team.vercel.app/", vercel);
    expectRejected("https://evil.com/x#--team.vercel.app/", vercel);
  });

  it("reads `?` as one character that is not a separator", () => {
    const p: RedirectPolicy = { siteUrl: "https://site.com", allowList: ["https://v?.site.com/a?c"] };
    expectAccepted("https://v2.site.com/abc", p);
    expectRejected("https://v.site.com/abc", p);
    expectRejected("https://v22.site.com/abc", p);
    expectRejected("https://v2.site.com/a/c", p);
  });

  it("takes entries with or without a trailing slash, and a pattern without `**` matches only what it says", () => {
    const p: RedirectPolicy = {
      siteUrl: "https://site.com",
      allowList: ["https://a.site.com", "https://b.site.com/", "https://c.site.com/cb/", "https://d.site.com/cb"],
    };
    for (const ok of ["https://a.site.com", "https://a.site.com/", "https://b.site.com", "https://c.site.com/cb"]) {
      expectAccepted(ok, p);
    }
    expectAccepted("https://c.site.com/cb/", p);
    expectAccepted("https://d.site.com/cb/", p);
    for (const no of [
      "https://a.site.com/x",
      "https://a.site.com/?x=1",
      "https://d.site.com/cb/x",
      "https://d.site.com/cbx",
    ]) {
      expectRejected(no, p);
    }
  });

  it("accepts host-less custom-scheme redirects (RFC 8252) only as listed", () => {
    const p: RedirectPolicy = { siteUrl: "https://site.com", allowList: ["com.example.app:/oauth2redirect"] };
    expectAccepted("com.example.app:/oauth2redirect", p);
    expectRejected("com.example.app://oauth2redirect", p);
    expectRejected("com.example.app:/oauth2redirect/x", p);
    const anyPath: RedirectPolicy = { siteUrl: "https://site.com", allowList: ["com.example.app:/**"] };
    expectAccepted("com.example.app:/cb", anyPath);
    expectRejected("com.example.app://evil.com/cb", anyPath);
    const dotted: RedirectPolicy = { siteUrl: "https://site.com", allowList: ["com.example.app://login"] };
    expectAccepted("com.example.app://login", dotted);
    expectRejected("com.example.apps://login", dotted);
  });

  it("ignores entries with a wildcard scheme", () => {
    const p: RedirectPolicy = {
      siteUrl: "https://site.com",
      allowList: ["*://callback", "**://**", "http*://evil.com/**"],
    };
    expectRejected("myapp://callback", p);
    expectRejected("https://evil.com/", p);
  });

  it("never accepts script, data or file URLs, even when listed", () => {
    const p: RedirectPolicy = {
      siteUrl: "https://site.com",
      allowList: ["javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", "vbscript:x"],
    };
    for (const candidate of p.allowList) expectRejected(candidate, p);
  });

  it("escapes regex metacharacters, so a malformed entry neither throws nor hides the entries after it", () => {
    const p: RedirectPolicy = {
      siteUrl: "https://site.com",
      allowList: ["https://(.site.com/[", "https://a+b.site.com/x|y", "https://app.site.com/**"],
    };
    expectAccepted("https://app.site.com/x", p);
    expectAccepted("https://a+b.site.com/x|y", p);
    expectRejected("https://aab.site.com/x", p);
    expectRejected("https://a+b.site.com/x", p);
  });

  it("still serves the allow list when SITE_URL does not parse", () => {
    const p: RedirectPolicy = { siteUrl: "not a url", allowList: ["https://app.site.com/**"] };
    expectAccepted("https://app.site.com/x", p);
    expect(isAllowedRedirect("https://evil.com/", p)).toBe(false);
  });
});

describe("chooseRedirect", () => {
  it("returns the first allowed candidate, in order", () => {
    expect(chooseRedirect(["https://evil.com", "https://app.site.com/a", "https://site.com/b"], policy)).toBe(
      "https://app.site.com/a",
    );
    expect(chooseRedirect(["https://site.com/b", "https://app.site.com/a"], policy)).toBe("https://site.com/b");
  });

  it("skips undefined and empty candidates", () => {
    expect(chooseRedirect([undefined, "", "https://site.com/b"], policy)).toBe("https://site.com/b");
  });

  it("falls back to SITE_URL when no candidate is allowed, or there are none", () => {
    const p = { ...policy, siteUrl: "https://site.com/home" };
    expect(chooseRedirect(["https://evil.com", undefined, "", "//site.com"], p)).toBe("https://site.com/home");
    expect(chooseRedirect([], p)).toBe("https://site.com/home");
  });
});
