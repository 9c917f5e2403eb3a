// The retail tasks: what the simulated customer wants and knows, and the gold actions.
import { readDataFile } from './data-file.ts';

export interface GoldAction {
  readonly action_id: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

export interface RetailTask {
  readonly id: string;
  readonly user_scenario: {
    readonly persona?: string | null;
    readonly instructions: {
      readonly task_instructions: string;
      readonly reason_for_call: string;
      readonly known_info: string | null;
      readonly unknown_info: string | null;
    };
  };
  readonly evaluation_criteria: {
    readonly actions: readonly GoldAction[];
    readonly communicate_info: readonly string[];
    readonly nl_assertions: readonly string[] | null;
    readonly reward_basis: readonly string[];
  };
}

export const loadTasks = (dir: string): RetailTask[] => JSON.parse(readDataFile(dir, 'tasks.json')) as RetailTask[];
