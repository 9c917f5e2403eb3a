// `--guest <language>` on the commands that show or run programs: the language of
// run_code programs (TypeScript, or Python on Monty).
import { type Command, Option } from 'commander';
import { MONTY_MISSING_MESSAGE, montyInstalled } from '../../sandbox/python/load-monty.ts';
import { PROGRAM_GUESTS, type ProgramGuest } from '../ptc/program-guest.ts';
import { UsageError } from './usage-error.ts';

/** The commands (and `runs` subcommands) that take --guest. */
export const GUEST_COMMANDS: readonly string[] = ['sdk', 'run', 'serve', 'schemas', 'check'];

export function withGuestOption(command: Command): Command {
  return command.addOption(
    new Option(
      '--guest <language>',
      'language of run_code programs: typescript, or python (Monty; needs the optional @pydantic/monty)',
    ).choices([...PROGRAM_GUESTS]),
  );
}

/** The runtime option for a parsed --guest (nothing when it was not given); without Monty, a usage error. */
export function guestOptionOf(o: { readonly guest?: ProgramGuest }): { guest?: ProgramGuest } {
  if (o.guest === undefined) return {};
  if (o.guest === 'python' && !montyInstalled()) throw new UsageError(MONTY_MISSING_MESSAGE);
  return { guest: o.guest };
}
