/** The base64 DER body of a PEM certificate, as a KeyDescriptor's X509Certificate carries it. */
export const pemBody = (pem: string): string => pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");

/** Text for XML content or a double-quoted attribute. */
export const escapeXml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
