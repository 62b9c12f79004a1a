import type { FlowState } from "@latchkey/domain";
import type { FlowStatesTable } from "../schema/flow-states.ts";

export type FlowStateRow = FlowStatesTable["$inferSelect"];

/** The flow's columns. */
export function toFlowStateRow(flow: FlowState): FlowStateRow {
  return {
    id: flow.id,
    authCodeHash: flow.authCodeHash,
    userId: flow.userId,
    codeChallenge: flow.codeChallenge,
    codeChallengeMethod: flow.codeChallengeMethod,
    authenticationMethod: flow.authenticationMethod,
    providerType: flow.provider?.name ?? null,
    providerAccessToken: flow.provider?.sealedAccessToken ?? null,
    providerRefreshToken: flow.provider?.sealedRefreshToken ?? null,
    linkProvider: flow.pendingLink?.provider ?? null,
    linkProfile: flow.pendingLink?.profile ?? null,
    createdAt: flow.createdAt,
  };
}

/** The domain's FlowState from its row. */
export function fromFlowStateRow(row: FlowStateRow): FlowState {
  const { providerType, providerAccessToken, providerRefreshToken, linkProvider, linkProfile, ...rest } = row;
  const provider =
    providerType === null || providerAccessToken === null
      ? null
      : { name: providerType, sealedAccessToken: providerAccessToken, sealedRefreshToken: providerRefreshToken };
  const pendingLink =
    linkProvider === null || linkProfile === null ? null : { provider: linkProvider, profile: linkProfile };
  return { ...rest, provider, pendingLink };
}
