/**
 * The operator command API of a running emulator — the same Shelf commands that scripts, IPMI
 * (Set FRU Activation …) and scenarios call, plus the HA operator actions, gathered behind one
 * small interface so the TUI (ui/keymap.ts) depends on nothing else. No logic of its own beyond
 * routing: every refusal is the Shelf's or the HA layer's CommandError, passed through.
 */
import { CommandError } from '../../board/common/errors.ts';
import type { FaultKind } from '../model/events.ts';
import type { HotSwapOutcome } from '../model/shelf/hot-swap.ts';
import type { Shelf } from '../model/shelf.ts';
import type { HaPart } from './ha-seam.ts';

/** What every operator command may do; each throws CommandError when refused. */
export interface OperatorCommands {
  /** Opens the ejector handle (deactivation M4 → M5 → M6 → M1). Shelf.hotSwap.openHandle. */
  openHandle(fru: string): HotSwapOutcome;
  /** Closes the handle (activation M1 → M2 → M3 → M4). Shelf.hotSwap.closeHandle. */
  closeHandle(fru: string): HotSwapOutcome;
  /** Pulls the board from the backplane (M0). Shelf.hotSwap.extract. */
  extract(fru: string): HotSwapOutcome;
  /** Plugs it back in (M0 → M1, handle closed → M4). Shelf.hotSwap.insert. */
  insert(fru: string): HotSwapOutcome;
  /** Injects a fault (default payload). Shelf.hotSwap.injectFault. */
  injectFault(fru: string, kind?: FaultKind): HotSwapOutcome;
  /** Repairs injected faults. Shelf.hotSwap.repair. */
  repair(fru: string): HotSwapOutcome;
  /** Planned switchover of a pair (`shmc`, `lb1`, …). HA layer; `not_available` until it is wired. */
  switchover(pair: string): void;
  /** Hangs a node (it stops feeding its watchdog). HA layer; `not_available` until it is wired. */
  hang(node: string): void;
  /** Ends a hang. HA layer; `not_available` until it is wired. */
  heal(node: string): void;
  /** True when the HA operator actions are available. */
  readonly haAvailable: boolean;
}

/** The CommandError code of an operator action whose layer is off in this run (`start --no-ha`). */
export const NOT_AVAILABLE = 'not_available';

/** Told about operator actions that other parts show (the consoles stop answering on a hang). */
export interface OperatorObserver {
  /** A node was hung (true) or healed (false) through the HA layer. */
  hung?(node: string, hung: boolean): void;
}

/**
 * Builds the command API over a shelf and an optional HA part.
 * @param ha returns the HA part when wired (looked up on every call, so it can be attached later)
 * @param observer told after a successful hang/heal
 */
export function operatorCommands(shelf: Shelf, ha: () => HaPart | undefined, observer: OperatorObserver = {}): OperatorCommands {
  const needHa = (what: string): HaPart => {
    const h = ha();
    if (!h) throw new CommandError(NOT_AVAILABLE, `${what}: the HA layer is off (started with --no-ha)`);
    return h;
  };
  return {
    openHandle: (fru) => shelf.hotSwap.openHandle(fru),
    closeHandle: (fru) => shelf.hotSwap.closeHandle(fru),
    extract: (fru) => shelf.hotSwap.extract(fru),
    insert: (fru) => shelf.hotSwap.insert(fru),
    injectFault: (fru, kind) => shelf.hotSwap.injectFault(fru, kind ?? 'payload'),
    repair: (fru) => shelf.hotSwap.repair(fru),
    switchover: (pair) => needHa('switchover').switchover(pair),
    hang: (node) => {
      const n = shelf.resolve(node);
      needHa('hang').hang(n);
      observer.hung?.(n, true);
    },
    heal: (node) => {
      const n = shelf.resolve(node);
      needHa('heal').heal(n);
      observer.hung?.(n, false);
    },
    get haAvailable() {
      return ha() !== undefined;
    },
  };
}
