import type { FlowEvent, FlowEvents } from "../ports/flow-events.ts";

/** Keeps every event the flows report, in order. */
export class RecordingFlowEvents implements FlowEvents {
  readonly recorded: FlowEvent[] = [];

  record(event: FlowEvent): void {
    this.recorded.push(event);
  }

  /** The events of one kind, so a test reads only what it is about. */
  of<K extends FlowEvent["kind"]>(kind: K): Extract<FlowEvent, { kind: K }>[] {
    return this.recorded.filter((event): event is Extract<FlowEvent, { kind: K }> => event.kind === kind);
  }

  clear(): void {
    this.recorded.length = 0;
  }
}
