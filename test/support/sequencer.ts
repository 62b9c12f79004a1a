import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * vitest's order (the longest files first, as its cache knows them; the largest first without one), with the fault
 * suite ahead of all: its one file is the run's longest lane, so it starts at once.
 */
export default class FaultsFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const faults = sorted.filter((file) => file.project.name === "faults");
    return [...faults, ...sorted.filter((file) => file.project.name !== "faults")];
  }
}
