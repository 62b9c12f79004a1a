import { relative } from "node:path";
import type { Reporter, TestModule, Vitest } from "vitest/node";

/**
 * Added to vitest's own reporter: after its summary, where the time went (per project, and the slowest files) and
 * why tests were skipped, one line per reason. A test skipped for what the machine lacks says so with
 * `context.skip(reason)` or skipAllIfMissing (@latchkey/domain/testing); one skipped without a reason is listed
 * apart, as it may hide a failure.
 */
export default class RunSummaryReporter implements Reporter {
  private vitest!: Vitest;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines = [...timeLines(testModules, this.vitest.config.root), ...skipLines(testModules)];
    if (lines.length > 0) this.vitest.logger.log(`\n${lines.join("\n")}\n`);
  }
}

/** A module's time in its worker: setting up, importing (collecting) and running its tests and hooks. */
function secondsOf(module: TestModule): number {
  const { prepareDuration, environmentSetupDuration, collectDuration, duration } = module.diagnostic();
  return (prepareDuration + environmentSetupDuration + collectDuration + duration) / 1000;
}

function timeLines(testModules: ReadonlyArray<TestModule>, root: string): string[] {
  if (testModules.length === 0) return [];
  const projects = new Map<string, { files: number; tests: number; seconds: number }>();
  for (const module of testModules) {
    const project = projects.get(module.project.name) ?? { files: 0, tests: 0, seconds: 0 };
    project.files += 1;
    project.tests += [...module.children.allTests()].length;
    project.seconds += secondsOf(module);
    projects.set(module.project.name, project);
  }
  const slowest = [...testModules].sort((a, b) => secondsOf(b) - secondsOf(a)).slice(0, 5);
  return [
    "Time per project (the sum of its files' times; files run side by side):",
    ...[...projects].map(
      ([name, { files, tests, seconds }]) =>
        `  ${name.padEnd(12)} ${String(files).padStart(4)} files ${String(tests).padStart(5)} tests ${seconds.toFixed(1).padStart(7)} s`,
    ),
    `Slowest files: ${slowest.map((module) => `${relative(root, module.moduleId)} ${secondsOf(module).toFixed(1)} s`).join(", ")}`,
  ];
}

function skipLines(testModules: ReadonlyArray<TestModule>): string[] {
  const byReason = new Map<string, Set<string>>();
  const counts = new Map<string, number>();
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const result = test.result();
      if (result.state !== "skipped") continue;
      const reason = result.note ?? "(no reason given)";
      counts.set(reason, (counts.get(reason) ?? 0) + 1);
      const files = byReason.get(reason) ?? new Set<string>();
      files.add(module.relativeModuleId);
      byReason.set(reason, files);
    }
  }
  if (counts.size === 0) return [];
  return [
    "Skipped:",
    ...[...counts].map(([reason, count]) => {
      const files = [...(byReason.get(reason) ?? [])];
      const shown =
        files.length > 2 ? `${files.slice(0, 2).join(", ")} and ${files.length - 2} more` : files.join(", ");
      return `  ${String(count).padStart(4)} ${count === 1 ? "test " : "tests"} ${reason} (${shown})`;
    }),
  ];
}
