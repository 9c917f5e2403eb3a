// `ptc-runtime/demo`: the built-in shop tools and the demo scenario behind `ptc demo`,
// for examples, benchmarks and trying the runtime without writing tools first.
export { shopTools, loadShopData } from './shop-tools.ts';
export type { Customer, Order, OrderLine, Shipment, ShopData } from './shop-tools.ts';
export { compareModes, runNative, runProgrammatic } from './compare-modes.ts';
export type { ModeComparison, ModeRun } from './compare-modes.ts';
export { readJson } from './scenario.ts';
export type { Scenario, ScriptedCall } from './scenario.ts';
export { lateDeliveries } from './late-deliveries.ts';
