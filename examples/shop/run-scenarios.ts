// Two more shop scenarios, each answered natively (a scripted model reads every tool
// result) and by one run_code program, side by side.
//   bash scripts/example.sh examples/shop/run-scenarios.ts
import { compareModes } from 'ptc-runtime/demo';
import { flagLateOrdersScenario } from './flag-late-orders-scenario.ts';
import { productRevenueScenario } from './product-revenue-scenario.ts';

for (const scenario of [productRevenueScenario, flagLateOrdersScenario]) {
  const { native, ptc } = await compareModes(scenario);
  console.log(`\n${scenario.question}`);
  console.log(
    `  native:   ${native.roundTrips} round trips, ${native.toolCalls} tool calls, ${native.contextChars} chars of tool output`,
  );
  console.log(
    `  run_code: ${ptc.roundTrips} round trips, ${ptc.toolCalls} tool calls, ${ptc.contextChars} chars of tool output`,
  );
  const same = JSON.stringify(native.answer) === JSON.stringify(ptc.answer);
  console.log(`  ${same ? 'same answer' : 'ANSWERS DIFFER'}: ${JSON.stringify(ptc.answer)}`);
}
