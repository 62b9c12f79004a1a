// Adapters that need no server and do no I/O, fit for production: they live beside the domain.

export { ignoredFlowEvents } from "./flow-events.ts";
export { createInMemoryRateLimiter } from "./rate-limiter.ts";
