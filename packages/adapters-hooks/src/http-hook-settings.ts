import { Webhook } from "standardwebhooks";

/** GoTrue's formats (internal/conf): a symmetric secret, and an Ed25519 key pair it accepts but cannot sign with. */
const SYMMETRIC_SECRET = /^v1,whsec_[A-Za-z0-9+/=]{32,88}/;
const ASYMMETRIC_SECRET = /^v1a,whpk_[A-Za-z0-9+/=]{44,}:whsk_[A-Za-z0-9+/=]{44,}$/;
/** Standard base64 with its padding, as Go's base64.StdEncoding (and so GoTrue's signer) decodes it. */
const PADDED_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The hosts GoTrue lets a hook reach over plain http. */
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "host.docker.internal"]);

const SYMMETRIC_PREFIX = "v1,";

export interface HttpHookSettings {
  /** HOOK_<NAME>_URI: https://…, or http:// to a local host. */
  readonly uri: string;
  /** HOOK_<NAME>_SECRETS, split at `|`: each `v1,whsec_<base64>`; every one signs each request. */
  readonly secrets: readonly string[];
}

/** The Standard Webhooks signer of a `v1,whsec_…` secret, as GoTrue makes it: the library given `whsec_…`. */
export const signerOf = (secret: string): Webhook => new Webhook(secret.slice(SYMMETRIC_PREFIX.length));

/** Why a secret cannot sign, naming it by its place in the list only: a secret never reaches a message. */
function problemOfSecret(secret: string, place: number): string | null {
  if (ASYMMETRIC_SECRET.test(secret)) {
    return `secret #${place} is an asymmetric (v1a,whpk_…) key: only symmetric v1,whsec_ secrets are supported`;
  }
  const key = secret.slice(`${SYMMETRIC_PREFIX}whsec_`.length);
  if (!SYMMETRIC_SECRET.test(secret) || !PADDED_BASE64.test(key)) {
    return `secret #${place} is not of the form v1,whsec_<base64, 32 to 88 characters>`;
  }
  try {
    signerOf(secret);
  } catch {
    return `secret #${place} cannot sign`;
  }
  return null;
}

/** What is wrong with an HTTP hook's settings, and which setting it is in (HOOK_<NAME>_URI or _SECRETS). */
export interface HttpHookSettingsProblem {
  readonly setting: "uri" | "secrets";
  readonly problem: string;
}

function problemOfUri(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not a valid URL";
  }
  if (url.protocol === "https:") return null;
  if (url.protocol !== "http:") return "must be https:// (or http:// to a local host)";
  // The URL keeps an IPv6 host in its brackets; Go's Hostname() does not.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return LOCAL_HOSTS.has(host)
    ? null
    : "only localhost, 127.0.0.1, ::1 and host.docker.internal are supported with http";
}

/**
 * What is wrong with an HTTP hook's settings, by GoTrue's rules (ValidateExtensibilityPoint), or null: https to any
 * host, http to a local one only, and each secret in a format it signs with. Checked at start, so that a call never
 * fails on its settings. No message carries a secret.
 */
export function checkHttpHookSettings({ uri, secrets }: HttpHookSettings): HttpHookSettingsProblem | null {
  const uriProblem = problemOfUri(uri);
  if (uriProblem !== null) return { setting: "uri", problem: uriProblem };
  for (const [index, secret] of secrets.entries()) {
    const problem = problemOfSecret(secret, index + 1);
    if (problem !== null) return { setting: "secrets", problem };
  }
  return null;
}
