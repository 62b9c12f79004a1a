import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { AuthError } from "@latchkey/domain";

// What URLs an admin gives for a custom provider may point at (GoTrue's ValidateOAuthURL): https on a public
// address, never this machine, a private network, link-local (the cloud's metadata service) or a multicast group.
// The address classes are node's BlockList, not hand-parsed.

const refused = (message: string) => new AuthError("validation_failed", message);

/** Ranges no custom provider URL may reach, whatever the settings, by GoTrue's message for each. */
const NEVER: readonly (readonly [string, BlockList])[] = [
  [
    "URL cannot resolve to private network addresses",
    ranges(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"], ["fc00::/7"]),
  ],
  ["URL cannot resolve to link-local addresses", ranges(["169.254.0.0/16"], ["fe80::/10"])],
  ["URL cannot resolve to multicast addresses", ranges(["224.0.0.0/4"], ["ff00::/8"])],
  ["URL cannot resolve to unspecified addresses", ranges(["0.0.0.0/32"], ["::/128"])],
];
const LOOPBACK = ranges(["127.0.0.0/8"], ["::1/128"]);

function ranges(ipv4: readonly string[], ipv6: readonly string[]): BlockList {
  const list = new BlockList();
  for (const range of ipv4) {
    const [network, prefix] = range.split("/") as [string, string];
    list.addSubnet(network, Number(prefix), "ipv4");
  }
  for (const range of ipv6) {
    const [network, prefix] = range.split("/") as [string, string];
    list.addSubnet(network, Number(prefix), "ipv6");
  }
  return list;
}

export interface UrlGuardOptions {
  /**
   * CUSTOM_OAUTH_ALLOW_LOOPBACK_URLS (ours): http, and this machine's addresses, let through for local development
   * and tests; private and link-local ranges stay closed.
   */
  readonly allowLoopback: boolean;
}

/** Why `address` may not be reached, or null when it may. */
export function addressProblem(address: string, options: UrlGuardOptions): string | null {
  const family: "ipv4" | "ipv6" = isIP(address) === 6 ? "ipv6" : "ipv4";
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const [checked, checkedFamily]: [string, "ipv4" | "ipv6"] = mapped ? [mapped, "ipv4"] : [address, family];
  if (LOOPBACK.check(checked, checkedFamily)) {
    return options.allowLoopback ? null : "URL cannot resolve to loopback addresses";
  }
  for (const [message, list] of NEVER) if (list.check(checked, checkedFamily)) return message;
  return null;
}

const LOCAL_NAMES = new Set(["localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "::", "[::]"]);

/** The URL's scheme and host name as GoTrue checks them, before any address is resolved. */
export function urlProblem(raw: string, options: UrlGuardOptions): { url: URL } | { problem: string } {
  if (!URL.canParse(raw)) return { problem: "Invalid URL format" };
  const url = new URL(raw);
  const local = LOCAL_NAMES.has(url.hostname.toLowerCase()) || url.hostname.toLowerCase().endsWith(".localhost");
  const insecureAllowed = options.allowLoopback && url.protocol === "http:";
  if (url.protocol !== "https:" && !insecureAllowed) return { problem: "URL must use HTTPS" };
  if (url.hostname === "") return { problem: "URL must have a valid hostname" };
  if (local && !options.allowLoopback) return { problem: "URL cannot point to localhost or loopback addresses" };
  return { url };
}

/**
 * CustomProviderRuntime.checkUrl: the URL's form, then every address its host resolves to. Throws AuthError
 * `validation_failed` with GoTrue's message for the first thing wrong.
 */
export async function checkUrl(raw: string, options: UrlGuardOptions): Promise<void> {
  const checked = urlProblem(raw, options);
  if ("problem" in checked) throw refused(checked.problem);
  const host = checked.url.hostname.replace(/^\[|\]$/g, "");
  let addresses: { address: string }[];
  try {
    addresses = isIP(host) ? [{ address: host }] : await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    throw new AuthError("validation_failed", "Unable to resolve hostname", { cause: error });
  }
  for (const { address } of addresses) {
    const problem = addressProblem(address, options);
    if (problem !== null) throw refused(problem);
  }
}
