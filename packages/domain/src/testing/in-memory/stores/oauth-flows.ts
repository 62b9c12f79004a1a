import type { OAuthFlowStore } from "../../../ports/stores.ts";
import { copy, deleteWhere, type State } from "./state.ts";

/** How long an OAuth flow nobody came back for is kept, as the PostgreSQL store keeps it. */
const OAUTH_FLOW_ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

export const inMemoryOAuthFlows = (state: State): OAuthFlowStore => ({
  async insert(flow) {
    for (const userId of [flow.linkingTargetId, flow.inviteUserId]) {
      if (userId !== null && !state.users.has(userId)) throw new Error(`no user ${userId}`);
    }
    // As the database does: flows nobody came back for, begun more than a day before this one, are removed.
    const abandonedBefore = flow.createdAt.getTime() - OAUTH_FLOW_ABANDONED_AFTER_MS;
    deleteWhere(state.oauthFlows, (other) => other.createdAt.getTime() < abandonedBefore);
    state.oauthFlows.set(flow.id, copy(flow));
  },
  async take(id) {
    const flow = state.oauthFlows.get(id);
    if (!flow) return null;
    state.oauthFlows.delete(id);
    return copy(flow);
  },
});
