// What OpenAI's Responses API answers, for scripting the mock provider: a completed
// response with the given output items (the fields the `openai` client reads).
import type { JsonObject } from './mock-provider.ts';

export const openAIResponse = (output: JsonObject[]): JsonObject => ({
  id: 'resp_test',
  object: 'response',
  created_at: 0,
  status: 'completed',
  model: 'gpt-test',
  output,
  error: null,
  incomplete_details: null,
  instructions: null,
  metadata: {},
  parallel_tool_calls: true,
  temperature: 1,
  tool_choice: 'auto',
  tools: [],
  top_p: 1,
  usage: {
    input_tokens: 1,
    output_tokens: 1,
    total_tokens: 2,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  },
});
