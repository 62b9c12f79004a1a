import type { FlowEvents } from "../ports/flow-events.ts";

/** For a server without metrics: the flows report, nobody counts. */
export const ignoredFlowEvents: FlowEvents = { record: () => {} };
