import type { Deps } from "../../deps.ts";
import type { FlowState } from "../../model/flow-state.ts";
import type { PkceChallenge } from "../../model/pkce.ts";
import type { Stores } from "../../ports/stores.ts";
import { authCodeDigest } from "./digests.ts";

/**
 * Ends a PKCE flow in the code the browser carries back to the app, which POST /token?grant_type=pkce trades, with
 * the verifier, for a session (exchange-auth-code.ts). Only the code's digest is stored. Returns the code.
 */
export async function issueAuthCode(
  deps: Deps,
  stores: Stores,
  flow: Pick<FlowState, "userId" | "authenticationMethod" | "provider" | "createdAt"> & {
    pkce: PkceChallenge;
    pendingLink?: FlowState["pendingLink"];
  },
): Promise<string> {
  const authCode = deps.random.token(32);
  await stores.flowStates.insert({
    id: deps.random.uuid(),
    authCodeHash: authCodeDigest(deps.secrets, authCode),
    userId: flow.userId,
    codeChallenge: flow.pkce.challenge,
    codeChallengeMethod: flow.pkce.method,
    authenticationMethod: flow.authenticationMethod,
    provider: flow.provider,
    pendingLink: flow.pendingLink ?? null,
    createdAt: flow.createdAt,
  });
  return authCode;
}
