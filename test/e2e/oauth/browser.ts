import type { TestServer } from "../../../apps/server/test/support/start-test-server.ts";

export const SITE = "http://localhost:3000";

/**
 * What a browser does with a URL: follows redirects through this server (API_EXTERNAL_URL stands for it) and the
 * provider's stand-in until it lands on the app (SITE_URL), where it stops.
 */
export async function browse(server: TestServer, start: string): Promise<URL> {
  let url = new URL(start);
  const external = new URL(server.config.api.externalUrl);
  for (let hop = 0; hop < 10; hop++) {
    if (url.origin === new URL(SITE).origin) return url;
    const target = url.origin === external.origin ? `${server.url}${url.pathname}${url.search}` : url.toString();
    const response = await fetch(target, { redirect: "manual" });
    const location = response.headers.get("location");
    if (!location)
      throw new Error(`${target} answered ${response.status} without a redirect: ${await response.text()}`);
    url = new URL(location, target);
  }
  throw new Error("too many redirects");
}
