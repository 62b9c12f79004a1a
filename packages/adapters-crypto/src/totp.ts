import type { TotpAuthenticator, TotpEnrollment } from "@latchkey/domain";
import { Secret, TOTP } from "otpauth";
import QRCode from "qrcode";

// What every authenticator app supports, and what GoTrue enrolls with (RFC 6238 defaults).
const PARAMETERS = { algorithm: "SHA1", digits: 6, period: 30 } as const;
const CODE = /^[0-9]{6}$/;
// The quiet zone the QR specification asks for around the symbol, in modules.
const MARGIN = 4;
// Pixels per module for the SVG's intrinsic size: an <img> without one would fall back to 300×150.
const SCALE = 4;

/**
 * The QR code as raw SVG, drawn from the symbol's modules rather than by qrcode's renderer, whose `#rrggbb` colours
 * would cut auth-js's unencoded `data:image/svg+xml;utf-8,` URL at the `#`. Named colours only, so no `#` at all.
 * Each run of dark modules in a row is one filled rectangle.
 */
function qrSvg(text: string): string {
  const { size, data } = QRCode.create(text, { errorCorrectionLevel: "H" }).modules;
  const total = size + 2 * MARGIN;
  let path = "";
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; ) {
      if (!data[row * size + col]) {
        col++;
        continue;
      }
      const start = col;
      while (col < size && data[row * size + col]) col++;
      path += `M${start + MARGIN} ${row + MARGIN}h${col - start}v1h-${col - start}z`;
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${total * SCALE}" height="${total * SCALE}" ` +
    `viewBox="0 0 ${total} ${total}" shape-rendering="crispEdges">` +
    `<rect width="${total}" height="${total}" fill="white"/><path fill="black" d="${path}"/></svg>`
  );
}

/** RFC 6238 codes (SHA-1, 6 digits, 30 s) on otpauth; enrollment QR codes on qrcode. */
export const totpAuthenticator: TotpAuthenticator = {
  // 160 bits, the length RFC 4226 recommends; base32 of 20 bytes needs no padding.
  newSecret: () => new Secret({ size: 20 }).base32,

  enrollment({ secret, issuer, accountName }): TotpEnrollment {
    // The label is `<issuer>:<account>` as GoTrue writes it, but otpauth percent-encodes each part, so `@` in an
    // email (or `:` in an issuer) arrives as %40 (%3A). Authenticator apps decode the label and accept both forms.
    const uri = new TOTP({ issuer, label: accountName, secret: Secret.fromBase32(secret), ...PARAMETERS }).toString();
    return { uri, qrCode: qrSvg(uri) };
  },

  matchingStep(secret, code, at) {
    // otpauth checks only the length (in UTF-16 units) before comparing bytes, and node's timingSafeEqual throws
    // on buffers of different lengths, which a non-ASCII code would make; so anything but six digits stops here.
    if (!CODE.test(code)) return null;
    const timestamp = at.getTime();
    // Compares with timingSafeEqual, trying the current step first, then the one before and the one after.
    const delta = TOTP.validate({
      token: code,
      secret: Secret.fromBase32(secret),
      timestamp,
      window: 1,
      ...PARAMETERS,
    });
    return delta === null ? null : TOTP.counter({ period: PARAMETERS.period, timestamp }) + delta;
  },
};
