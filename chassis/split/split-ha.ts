/**
 * The HA factory of the split shelf (`atcasim shelf`): puts the split shelf (./split-shelf.ts) into
 * the Emulator's HA seam — the processor-board pairs run in the shelf process as in `start`, the
 * ShMC pair in the two `atcasim shmc` processes.
 */
import { CommandError } from '../../board/common/errors.ts';
import type { HaFactory, HaPart } from '../runtime/ha-seam.ts';
import type { SplitShelf } from './split-shelf.ts';

/**
 * The HA factory of the split shelf: the emulator's HA part (`inner`, e.g. haFactory) for the
 * processor-board pairs only — the ShMC pair runs in the shmc processes — with the split shelf's
 * IPMI hooks and the ShMCs' member views added. Without `inner` (`--no-ha`) the processor boards
 * run without pairs (switchover and hang of a board answer "not available").
 */
export function splitHaFactory(inner: HaFactory | undefined, split: SplitShelf): HaFactory {
  return async (ctx) => {
    const config = { ...ctx.config, ha: { ...ctx.config.ha, pairs: ctx.config.ha.pairs.filter((p) => p.kind !== 'shmc') } };
    split.attachShelf(ctx.shelf);
    const none = (what: string) => () => {
      throw new CommandError('not_available', `${what}: the processor pairs are off (--no-ha)`);
    };
    const part: HaPart = inner
      ? await inner({ ...ctx, config })
      : { switchover: none('switchover'), hang: none('hang'), heal: none('heal'), status: () => [], stop: () => {} };
    const hooks = split.ipmiHooks();
    const wrapped: HaPart = {
      switchover: (pair) => {
        if (pair === 'shmc' || pair === 'shmc-a' || pair === 'shmc-b') throw new CommandError('not_available', 'split shelf: the ShMC pair switches over when its active process dies or stops (no planned switchover yet)');
        part.switchover(pair);
      },
      hang: (node) => {
        if (node === 'shmc-a' || node === 'shmc-b') throw new CommandError('not_available', `split shelf: hang ${node} with kill -STOP on its process`);
        part.hang(node);
      },
      heal: (node) => part.heal(node),
      status: () => [...split.memberViews(), ...part.status()],
      stop: () => part.stop(),
      ipmiHooks: hooks,
      ...(part.handover ? { handover: part.handover } : {}),
    };
    return wrapped;
  };
}
