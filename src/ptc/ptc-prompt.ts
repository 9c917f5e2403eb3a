// The texts a model sees in ptc and both modes: the instruction that only run_code
// is callable directly (ptc only), and the SDK generated from the visible tools.
export interface PromptSection {
  /** Stable id, for callers that place sections themselves. */
  readonly id: 'ptc-instructions' | 'ptc-sdk';
  readonly text: string;
}

export const PTC_ONLY_INSTRUCTION =
  'Only the run_code tool is callable directly: call the others in one program, filter and aggregate there, ' +
  'return only what you need.';

/** The fixed refusal for a model-direct native call in ptc mode: it tells the model to call the tool from a program. */
export const directCallRefusal = (name: string): string =>
  `unknown tool "${name}": only run_code is callable directly — call ${name} from inside a run_code program instead`;

export function sdkSection(sdk: string, guest: 'typescript' | 'python' = 'typescript'): PromptSection {
  const language = guest === 'python' ? 'Python' : 'TypeScript';
  return { id: 'ptc-sdk', text: `${language} SDK available inside run_code programs:\n\n${sdk}` };
}
