import type { TestServer } from "@latchkey/server/testing";

export const SITE = "http://localhost:3000";

interface Cookie {
  readonly value: string;
  readonly path: string;
}

/**
 * One browser: it keeps the cookies this server sets (the one that binds an OAuth sign-in to the browser that
 * started it among them) and sends them back where their path says, as a browser would.
 */
export class Browser {
  readonly #cookies = new Map<string, Cookie>();

  constructor(private readonly server: TestServer) {}

  /** A request from this browser, not following redirects. */
  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    // The server answers at its own address and at API_EXTERNAL_URL's (the official client is given the first).
    const toServer = [this.server.config.api.externalUrl, this.server.url].some(
      (address) => new URL(address).origin === target.origin,
    );
    const headers = new Headers(init.headers);
    const cookie = toServer ? this.#cookieHeader(target.pathname) : "";
    if (cookie !== "") headers.set("cookie", cookie);
    const response = await fetch(toServer ? `${this.server.url}${target.pathname}${target.search}` : target, {
      ...init,
      headers,
      redirect: "manual",
    });
    if (toServer) this.#keep(response.headers.getSetCookie());
    return response;
  }

  /** What a browser does with a URL: follows redirects until it lands on the app (SITE_URL), where it stops. */
  async browse(start: string | URL): Promise<URL> {
    let url = new URL(start);
    for (let hop = 0; hop < 10; hop++) {
      if (url.origin === new URL(SITE).origin) return url;
      const response = await this.fetch(url);
      const location = response.headers.get("location");
      if (!location) throw new Error(`${url} answered ${response.status} without a redirect: ${await response.text()}`);
      url = new URL(location, url);
    }
    throw new Error("too many redirects");
  }

  /** The names of the cookies this browser holds. */
  cookieNames(): string[] {
    return [...this.#cookies.keys()];
  }

  #cookieHeader(path: string): string {
    return [...this.#cookies]
      .filter(
        ([, cookie]) =>
          path === cookie.path || path.startsWith(cookie.path.endsWith("/") ? cookie.path : `${cookie.path}/`),
      )
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join("; ");
  }

  #keep(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
      const equals = pair.indexOf("=");
      const name = pair.slice(0, equals);
      const value = pair.slice(equals + 1);
      const attribute = (key: string) =>
        attributes.find((part) => part.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      if (attribute("max-age") === "0" || value === "") this.#cookies.delete(name);
      else this.#cookies.set(name, { value, path: attribute("path") ?? "/" });
    }
  }
}

/** A URL opened in a new browser, followed to the app. */
export function browse(server: TestServer, start: string | URL): Promise<URL> {
  return new Browser(server).browse(start);
}
