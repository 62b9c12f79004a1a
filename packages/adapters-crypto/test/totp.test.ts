import { totpCode, totpStep } from "@latchkey/domain/testing";
import QRCode from "qrcode";
import { describe, expect, it } from "vitest";
import { totpAuthenticator as totp } from "../src/totp.ts";

// RFC 6238 appendix B's SHA-1 key: the ASCII "12345678901234567890", in base32.
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
const at = (seconds: number) => new Date(seconds * 1000);
const stepOf = (seconds: number) => Math.floor(seconds / 30);

describe("TOTP codes", () => {
  it("match RFC 6238's SHA-1 test vectors (the last six digits of its eight)", () => {
    expect(Buffer.from("12345678901234567890").length).toBe(20);
    const vectors: [number, string][] = [
      [59, "287082"],
      [1111111109, "081804"],
      [1111111111, "050471"],
      [1234567890, "005924"],
      [2000000000, "279037"],
    ];
    for (const [seconds, code] of vectors) {
      expect(totp.matchingStep(RFC_SECRET, code, at(seconds))).toBe(stepOf(seconds));
    }
  });

  it("accept the step on either side, returning that step, and refuse two away", () => {
    // 1111111109 s is step 37037036; its code is the one before at 30 s later and the one after 30 s earlier.
    const seconds = 1111111109;
    const step = stepOf(seconds);
    expect(totp.matchingStep(RFC_SECRET, "081804", at(seconds + 30))).toBe(step);
    expect(totp.matchingStep(RFC_SECRET, "081804", at(seconds - 30))).toBe(step);
    expect(totp.matchingStep(RFC_SECRET, "081804", at(seconds + 60))).toBeNull();
    expect(totp.matchingStep(RFC_SECRET, "081804", at(seconds - 60))).toBeNull();
  });

  it("refuse garbage without throwing", () => {
    const now = at(1111111109);
    for (const code of ["", "08180", "0818044", "08180a", " 81804", "081804\n", "٠٨١٨٠٤", "08180é", "🙂🙂🙂", "1e+5"]) {
      expect(totp.matchingStep(RFC_SECRET, code, now)).toBeNull();
    }
    expect(totp.matchingStep(RFC_SECRET, "000000", now)).toBeNull();
  });
});

describe("TOTP secrets", () => {
  it("are 20 random bytes in unpadded base32, fresh each time", () => {
    const secrets = Array.from({ length: 50 }, () => totp.newSecret());
    for (const secret of secrets) expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(new Set(secrets).size).toBe(50);
  });

  it("give the codes an authenticator app computes from them (the domain's test TOTP, on node:crypto)", () => {
    const secret = totp.newSecret();
    const now = new Date();
    const step = totpStep(now);
    for (const offset of [-1, 0, 1]) {
      expect(totp.matchingStep(secret, totpCode(secret, step + offset), now)).toBe(step + offset);
    }
  });
});

describe("TOTP enrollment", () => {
  const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
  const { uri, qrCode } = totp.enrollment({ secret, issuer: "Latchkey", accountName: "ada@example.com" });

  it("gives an otpauth URI with the issuer and account in the label and the RFC 6238 parameters", () => {
    const url = new URL(uri);
    expect(url.protocol).toBe("otpauth:");
    expect(uri.startsWith("otpauth://totp/Latchkey:ada%40example.com?")).toBe(true);
    expect(url.host).toBe("totp");
    expect(decodeURIComponent(url.pathname)).toBe("/Latchkey:ada@example.com");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      secret,
      issuer: "Latchkey",
      algorithm: "SHA1",
      digits: "6",
      period: "30",
    });
  });

  it("encodes an issuer that needs it", () => {
    const { uri } = totp.enrollment({ secret, issuer: "Acme & Co", accountName: "ada@example.com" });
    expect(new URL(uri).searchParams.get("issuer")).toBe("Acme & Co");
  });

  it("draws the URI as an SVG QR code with no # in it, sized for the symbol at level H", () => {
    expect(qrCode.startsWith("<svg")).toBe(true);
    expect(qrCode.trimEnd().endsWith("</svg>")).toBe(true);
    expect(qrCode).not.toContain("#");

    const symbol = QRCode.create(uri, { errorCorrectionLevel: "H" }).modules;
    const viewBox = /viewBox="0 0 (\d+) (\d+)"/.exec(qrCode);
    expect(viewBox).not.toBeNull();
    const [, width, height] = viewBox!;
    expect(Number(width)).toBe(Number(height));
    expect(Number(width)).toBe(symbol.size + 8);

    // The rectangles drawn are exactly the symbol's dark modules, offset by the 4-module quiet zone.
    const drawn = new Uint8Array(symbol.size * symbol.size);
    const d = /<path fill="black" d="([^"]*)"/.exec(qrCode)![1]!;
    for (const [, x, y, length] of d.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
      for (let i = 0; i < Number(length); i++) drawn[(Number(y) - 4) * symbol.size + Number(x) - 4 + i] = 1;
    }
    expect(d.replace(/M(\d+) (\d+)h(\d+)v1h-\3z/g, "")).toBe("");
    expect(Array.from(drawn)).toEqual(Array.from(symbol.data, (bit) => (bit ? 1 : 0)));
  });
});
