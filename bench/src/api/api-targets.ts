import { atMost, type TargetCheck } from "../targets.ts";
import type { ScenarioSummary } from "./scenario-summary.ts";

/**
 * What a scenario is held to on its own: no unexpected answers in any run. Its speed is judged only as a
 * ratio to the floor measured in the same run (floor-phase.ts): absolute req/s differ several times
 * between machines of one kind, so an absolute target would say more about the machine than the API.
 */
export function checkApiTargets(measurement: Pick<ScenarioSummary, "name" | "unexpected">): TargetCheck[] {
  return [atMost(`${measurement.name} unexpected responses or errors`, measurement.unexpected, 0, "")];
}
