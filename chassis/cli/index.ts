/**
 * Registry of CLI verbs. Each verb lives in its own file in this folder and exports
 * `register(program, ctx)`; add one import + one line below per verb.
 */
import type { Command } from 'commander';
import type { CliContext } from './context.ts';

type Registrar = (program: Command, ctx: CliContext) => void;

export async function registerAll(program: Command, ctx: CliContext): Promise<void> {
  const modules: Array<Promise<{ register: Registrar }>> = [
    // one line per verb module, e.g. import('./fields.ts'),
    import('./fields.ts'),
    import('./hash.ts'),
    import('./config.ts'),
    import('./db.ts'),
    import('./clia.ts'),
    import('./start.ts'),
    import('./replay.ts'),
    import('./scenario.ts'),
    import('./chaos.ts'),
    import('./shelf.ts'),
    import('./shmc.ts'),
    import('./net.ts'),
    import('./hpm.ts'),
  ];
  for (const m of await Promise.all(modules)) m.register(program, ctx);
}
