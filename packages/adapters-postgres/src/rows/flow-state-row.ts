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
    createdAt: flow.createdAt,
  };
}

/** The domain's FlowState from its row. */
export function fromFlowStateRow(row: FlowStateRow): FlowState {
  return { ...row };
}
