// The eight environments by class name.
import type { BfclEnv } from './env.ts';
import { GorillaFileSystem } from './file-system.ts';
import { MathAPI } from './math.ts';
import { MessageAPI } from './message.ts';
import { TwitterAPI } from './posting.ts';
import { TicketAPI } from './ticket.ts';
import { TradingBot } from './trading.ts';
import { TravelAPI } from './travel.ts';
import { VehicleControlAPI } from './vehicle.ts';

const CLASSES: Readonly<Record<string, () => BfclEnv>> = {
  GorillaFileSystem: () => new GorillaFileSystem(),
  MathAPI: () => new MathAPI(),
  MessageAPI: () => new MessageAPI(),
  TwitterAPI: () => new TwitterAPI(),
  TicketAPI: () => new TicketAPI(),
  TradingBot: () => new TradingBot(),
  TravelAPI: () => new TravelAPI(),
  VehicleControlAPI: () => new VehicleControlAPI(),
};

/** One instance per involved class, loaded from a deep copy of its cfg (MathAPI is never loaded). */
export function createEnvs(
  classes: readonly string[],
  config: Readonly<Record<string, Record<string, unknown>>>,
  longContext: boolean,
): Map<string, BfclEnv> {
  const envs = new Map<string, BfclEnv>();
  for (const cls of classes) {
    const make = CLASSES[cls];
    if (make === undefined) throw new Error(`unknown BFCL class ${cls}`);
    const env = make();
    if (cls !== 'MathAPI') env.load(structuredClone((config[cls] ?? {}) as Record<string, never>), longContext);
    envs.set(cls, env);
  }
  return envs;
}
