import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

// Headless Chromium for the browser tests, from the machine (Debian's package): nothing is downloaded. Without it
// (a fresh machine; CHROMIUM_PATH overrides where to look), a file's block is one skipped test saying so.

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";

/** The reason the run's summary gives for the skip (describeIfAvailable, as for the other things a machine may lack). */
export const missingChromium = existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM} (install it or set CHROMIUM_PATH)`;

/** Flags for this machine's closed network: nothing Chromium would fetch on its own, and no sandbox under root. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}
