// Section 6: characters of tool output that enter the model's context natively (every
// result of a scripted model's calls) against one run_code result, and the model round
// trips each way, for the demo scenario and two more. Both ways must give the same
// answer, or the row is void. Plus the fixed cost both ways pay: tool definitions
// (native JSON schemas) against run_code's schema and the SDK prompt section.
import { isDeepStrictEqual } from 'node:util';
import { flagLateOrdersScenario } from '../examples/shop/flag-late-orders-scenario.ts';
import { productRevenueScenario } from '../examples/shop/product-revenue-scenario.ts';
import { compareModes, lateDeliveries, type ModeRun, type Scenario, shopTools } from '../src/demo/index.ts';
import { createToolRuntime } from '../src/index.ts';

export interface ContextSavingsResult {
  readonly scenario: string;
  readonly native: Omit<ModeRun, 'answer'>;
  readonly ptc: Omit<ModeRun, 'answer'>;
  /** 1 − ptc chars / native chars. */
  readonly savedShare: number;
  readonly sameAnswer: boolean;
}

/** What every model request carries for the shop tools, in characters. */
export interface DefinitionCost {
  /** JSON of the native tool schemas a provider receives. */
  readonly nativeSchemaChars: number;
  /** JSON of the run_code schema (ptc mode). */
  readonly runCodeSchemaChars: number;
  /** The generated SDK prompt section. */
  readonly sdkChars: number;
  /** The ptc-only instruction section. */
  readonly instructionChars: number;
}

export const SCENARIOS: readonly Scenario[] = [lateDeliveries, productRevenueScenario, flagLateOrdersScenario];

const withoutAnswer = ({ answer: _answer, ...rest }: ModeRun): Omit<ModeRun, 'answer'> => rest;

export async function runContextSavingsBench(
  scenarios: readonly Scenario[] = SCENARIOS,
): Promise<ContextSavingsResult[]> {
  const results: ContextSavingsResult[] = [];
  for (const scenario of scenarios) {
    const { native, ptc } = await compareModes(scenario);
    results.push({
      scenario: scenario.name,
      native: withoutAnswer(native),
      ptc: withoutAnswer(ptc),
      savedShare: 1 - ptc.contextChars / native.contextChars,
      sameAnswer: isDeepStrictEqual(native.answer, ptc.answer),
    });
  }
  return results;
}

export async function measureDefinitionCost(): Promise<DefinitionCost> {
  const rt = createToolRuntime({ mode: 'native', sandbox: false });
  // The SDK as prompt sections, so that its size is counted apart from run_code's schema.
  const ptc = createToolRuntime({ mode: 'ptc', embedSdkInDescription: false });
  try {
    for (const tool of shopTools()) {
      rt.register(tool);
      ptc.register(tool);
    }
    const sections = ptc.prompt();
    const chars = (id: string): number => sections.filter((s) => s.id === id).reduce((n, s) => n + s.text.length, 0);
    return {
      nativeSchemaChars: JSON.stringify(rt.schemas()).length,
      runCodeSchemaChars: JSON.stringify(ptc.schemas()).length,
      sdkChars: sections.filter((s) => s.id !== 'ptc-instructions').reduce((n, s) => n + s.text.length, 0),
      instructionChars: chars('ptc-instructions'),
    };
  } finally {
    await Promise.all([rt.close(), ptc.close()]);
  }
}
