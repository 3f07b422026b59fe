/**
 * `atcasim start --live` (docs/live.md): the shelf on the live lab of `atcasim net up`. The live
 * shelf (chassis/config/live-shelf.yaml) is the default `--config`; no capture is replayed (the
 * traffic is the lab's); after the emulator serves, the hubs' front ports and the boards' back
 * ports are attached to the lab's TAPs (chassis/io/live-attach.ts, names from `--prefix`).
 * A refusal (a bad prefix, --replay with --live, a missing or busy interface, no namespace)
 * is one line; the emulator started so far is stopped again.
 */
import { checkPrefix, LabPlanError } from '../io/lab-plan.ts';
import { attachLive, LivePortError, openLivePorts, type LiveAttachment, type OpenedLivePorts } from '../io/live-attach.ts';
import { parseShelfConfig } from '../config/shelf-config.ts';
import type { Emulator } from '../runtime/emulator.ts';
import type { Logger } from '../../board/common/logger.ts';
import type { Clock } from '../../board/common/clock.ts';
import { LIVE_SHELF_PATH } from './net.ts';
import type { ProbePort } from '../../board/processor/health/probe-port.ts';

/** The flags `--live` reads. */
export interface LiveFlags {
  live?: boolean;
  prefix?: string;
  config?: string;
  replay?: string;
}

/**
 * Checks the live flags before anything is made, and defaults `--config` to the live shelf.
 * @returns a refusal (one line), or undefined
 */
export function checkLiveFlags(o: LiveFlags): string | undefined {
  if (!o.live) return o.prefix !== undefined ? '--prefix needs --live' : undefined;
  if (o.replay !== undefined) return '--live takes its traffic from the lab: --replay cannot be given with it';
  try {
    checkPrefix(o.prefix ?? 'atcasim');
  } catch (e) {
    if (e instanceof LabPlanError) return e.message;
    throw e;
  }
  o.config ??= LIVE_SHELF_PATH;
  return undefined;
}

/**
 * Attaches the running emulator to the lab.
 * @returns the attachment, or a one-line refusal (the caller stops the emulator)
 */
export function startLive(em: Emulator, o: LiveFlags, clock: Clock, log: Logger, events: Logger, opened: OpenedLivePorts): LiveAttachment | string {
  try {
    const att = attachLive({
      opened,
      config: em.config,
      dataPlane: em.dataPlane,
      clock,
      log,
      prefix: o.prefix ?? 'atcasim',
      onEvent: (ev) => events.warn({ event: ev.type, slot: `slot${ev.slot}`, detail: ev.detail }, ev.detail),
    });
    // Session sync carries each connection's translation; a board that takes a share over
    // translates its connections identically (docs/ha.md "Live mode").
    em.ha?.setSessionBindings?.(att.path);
    return att;
  } catch (e) {
    if (e instanceof LivePortError) return `--live: ${e.message}`;
    if (e instanceof TypeError) return `--live: ${e.message}`;
    throw e;
  }
}

/**
 * The processor boards' probe ports, made before the emulator (the boards take them at
 * construction) and pointed at the live path's probers once the links are attached. A probe
 * before that fails ('live link not attached').
 */
export class ProbeRelays {
  private readonly relays = new Map<number, { target: ProbePort | null }>();

  /** The probe port of the board in `slot` (what Emulator.start's `probe` option calls). */
  readonly port = (slot: number): ProbePort => {
    const r = { target: null as ProbePort | null };
    this.relays.set(slot, r);
    return {
      probe: (req, done) => {
        if (r.target !== null) r.target.probe(req, done);
        else setTimeout(() => done({ ok: false, detail: 'live link not attached' }), 0);
      },
    };
  };

  /** Points every board's port at its prober on the attached path. */
  attach(a: LiveAttachment): void {
    for (const [slot, r] of this.relays) r.target = a.path.probers.get(slot) ?? null;
  }
}

/**
 * Opens the lab's TAPs for the shelf in `yaml` before anything else is made (a missing or busy
 * interface, a missing namespace: nothing created).
 * @returns the opened ports, or a one-line refusal
 */
export function openLive(o: LiveFlags, yaml: string, source: string): OpenedLivePorts | string {
  try {
    return openLivePorts(parseShelfConfig(yaml, source), o.prefix ?? 'atcasim');
  } catch (e) {
    if (e instanceof LivePortError || e instanceof TypeError) return `--live: ${e.message}`;
    throw e;
  }
}

/** The ready line's `live` field. */
export function liveReadyFields(a: LiveAttachment | undefined, prefix: string | undefined): Record<string, unknown> {
  return a ? { live: { prefix: prefix ?? 'atcasim', ports: a.ports } } : {};
}
