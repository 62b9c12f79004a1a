import type { FlowStateStore } from "../../../ports/stores.ts";
import { copy, type State } from "./state.ts";

export const inMemoryFlowStates = (state: State): FlowStateStore => ({
  async insert(flow) {
    if (!state.users.has(flow.userId)) throw new Error(`no user ${flow.userId}`);
    state.flowStates.set(flow.id, copy(flow));
  },
  async consume(authCodeHash) {
    const flow = [...state.flowStates.values()].find((candidate) => candidate.authCodeHash === authCodeHash);
    if (!flow) return null;
    state.flowStates.delete(flow.id);
    return copy(flow);
  },
});
